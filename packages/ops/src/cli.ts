#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SCOPES, type Mode, type Scope } from '@idv/contracts';
import { InternalCallError } from '@idv/contracts';
import { opsClientFromEnv } from './client';
import { createDemo } from './demo';
import { DOCUMENT_READ_USAGE, DocumentReadUsageError, documentRead, formatDocumentLine } from './document-read';
import { FACE_USAGE, FaceUsageError, faceCompare, faceLiveness, formatFaceLine } from './face';

const USAGE = `Usage: pnpm ops <command> [options] [--json]

  account:create --name N --email E
  account:approve ID
  account:suspend ID
  project:create --account ID --name N
  config:publish --project ID --mode test|live --file F.json
  key:create --account ID --mode test|live --name N [--scopes a,b]
  key:revoke ID
  key:list --account ID
  balance:credit --account ID --tokens N
  balance:show --account ID
  owner:add --account ID --email E --name N    (a dashboard owner; prints a drawn password once)
  operator:create --email E --name N           (an operator of the console; prints a drawn password once)
  demo
${DOCUMENT_READ_USAGE}
${FACE_USAGE}

Environment: KEYS_URL, SESSIONS_URL, DASHBOARD_URL, INTERNAL_TOKEN (defaults match the local stack).`;

class UsageError extends Error {}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function mode(value: string): Mode {
  if (value !== 'test' && value !== 'live') throw new UsageError('--mode must be test or live');
  return value;
}

function scopes(value: unknown): Scope[] | undefined {
  if (typeof value !== 'string') return undefined;
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = list.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; valid: ${SCOPES.join(', ')}`);
  return list as Scope[];
}

async function run(argv: string[]): Promise<Record<string, unknown>> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      email: { type: 'string' },
      account: { type: 'string' },
      project: { type: 'string' },
      mode: { type: 'string' },
      file: { type: 'string' },
      scopes: { type: 'string' },
      tokens: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, id] = positionals;
  const ops = opsClientFromEnv();
  const needId = () => {
    if (!id) throw new UsageError(`${command} takes an id`);
    return id;
  };
  switch (command) {
    case 'account:create': {
      const account = await ops.createAccount({ name: required(values, 'name'), email: required(values, 'email') });
      return { id: account.id, status: account.status };
    }
    case 'account:approve': {
      const account = await ops.approveAccount(needId());
      return { id: account.id, status: account.status };
    }
    case 'account:suspend': {
      const account = await ops.suspendAccount(needId());
      return { id: account.id, status: account.status };
    }
    case 'project:create': {
      const project = await ops.createProject({ account_id: required(values, 'account'), name: required(values, 'name') });
      return { id: project.id };
    }
    case 'config:publish': {
      const file = required(values, 'file');
      let config: Record<string, unknown>;
      try {
        config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      } catch (error) {
        throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
      }
      const published = await ops.publishConfig(required(values, 'project'), mode(required(values, 'mode')), config);
      return { id: published.id, project_id: published.project_id, mode: published.mode };
    }
    case 'key:create': {
      const key = await ops.createKey({
        account_id: required(values, 'account'),
        mode: mode(required(values, 'mode')),
        name: required(values, 'name'),
        ...(scopes(values.scopes) ? { scopes: scopes(values.scopes) } : {}),
      });
      return { id: key.id, secret: key.secret, scopes: key.scopes };
    }
    case 'key:revoke': {
      const key = await ops.revokeKey(needId());
      return { id: key.id, revoked_at: key.revoked_at };
    }
    case 'key:list': {
      const keys = await ops.listKeys(required(values, 'account'));
      return { data: keys.data };
    }
    case 'balance:credit': {
      const tokens = Number(required(values, 'tokens'));
      if (!Number.isInteger(tokens) || tokens <= 0) throw new UsageError('--tokens must be a positive integer');
      return ops.creditBalance(required(values, 'account'), tokens);
    }
    case 'balance:show':
      return ops.balance(required(values, 'account'));
    case 'owner:add': {
      const password = randomBytes(12).toString('base64url');
      const owner = await ops.createAccountOwner(required(values, 'account'), {
        email: required(values, 'email'),
        name: required(values, 'name'),
        password,
      });
      return { id: owner.id, account_id: owner.account_id, email: owner.email, password };
    }
    case 'operator:create': {
      const password = randomBytes(12).toString('base64url');
      const operator = await ops.createOperator({ email: required(values, 'email'), name: required(values, 'name'), password });
      return {
        id: operator.id,
        email: operator.email,
        password,
        console: '/operator/sign-in (TOTP enrolled at the first sign-in)',
      };
    }
    case 'demo':
      return createDemo(ops);
    case undefined:
      throw new UsageError('no command given');
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

function print(result: Record<string, unknown>, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    process.stdout.write(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }
}

/** `document:read` works offline: it never builds the HTTP client `run` needs, and prints a line per file. */
async function runDocumentRead(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      document: { type: 'boolean', default: false },
      today: { type: 'string' },
      types: { type: 'string' },
      expect: { type: 'string' },
    },
  });
  const lines = await documentRead({
    files: positionals.slice(1),
    document: values.document,
    ...(values.today === undefined ? {} : { today: values.today }),
    ...(values.types === undefined ? {} : { types: values.types }),
    ...(values.expect === undefined ? {} : { expect: values.expect }),
  });
  for (const line of lines) process.stdout.write(values.json ? `${JSON.stringify(line)}\n` : `${formatDocumentLine(line)}\n\n`);
}

/** `face:compare` and `face:liveness` work offline too, one line per object. */
async function runFace(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      threshold: { type: 'string' },
      challenge: { type: 'string' },
      'interval-ms': { type: 'string' },
      'hold-ms': { type: 'string' },
    },
  });
  const files = positionals.slice(1);
  const lines =
    positionals[0] === 'face:compare'
      ? await faceCompare({ files, ...(values.threshold === undefined ? {} : { threshold: values.threshold }) })
      : await faceLiveness({
          files,
          ...(values.challenge === undefined ? {} : { challenge: values.challenge }),
          ...(values['interval-ms'] === undefined ? {} : { intervalMs: values['interval-ms'] }),
          ...(values['hold-ms'] === undefined ? {} : { holdMs: values['hold-ms'] }),
        });
  for (const line of lines) process.stdout.write(values.json ? `${JSON.stringify(line)}\n` : `${formatFaceLine(line)}\n`);
}

const argv = process.argv.slice(2).filter((arg) => arg !== '--');
const json = argv.includes('--json');
if (argv.includes('--help') || argv.length === 0) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(argv.length === 0 ? 1 : 0);
}
const offline = argv[0] === 'document:read' || argv[0] === 'face:compare' || argv[0] === 'face:liveness';
const pending =
  argv[0] === 'document:read'
    ? runDocumentRead(argv).then(() => ({}))
    : argv[0] === 'face:compare' || argv[0] === 'face:liveness'
      ? runFace(argv).then(() => ({}))
      : run(argv);
pending.then(
  (result) => {
    if (!offline) print(result, json);
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || error instanceof DocumentReadUsageError || error instanceof FaceUsageError;
    const message = usage ? `${error.message}\n\n${USAGE}` : (error as Error).message;
    if (json)
      process.stdout.write(
        `${JSON.stringify({ error: message, ...(error instanceof InternalCallError ? { status: error.status, body: error.body } : {}) })}\n`,
      );
    else process.stderr.write(`ops: ${message}\n`);
    process.exit(usage ? 2 : 1);
  },
);
