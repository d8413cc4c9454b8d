import fs from 'node:fs';
const defs = {
  'packages/contracts': { name: '@idv/contracts', deps: ['zod', 'ulid', '@asteasolutions/zod-to-openapi'] },
  'packages/kit': {
    name: '@idv/kit',
    deps: [
      '@idv/contracts',
      'express',
      'pino',
      'pino-http',
      'prom-client',
      'pg',
      'amqplib',
      'ioredis',
      'node-pg-migrate',
      'zod',
      'ulid',
    ],
  },
  'packages/testkit': { name: '@idv/testkit', deps: ['@idv/contracts', 'pg', 'amqplib', 'undici'] },
  'services/keys': { name: '@idv/keys', deps: ['@idv/kit', '@idv/contracts', 'express', 'zod'] },
  'services/gateway': { name: '@idv/gateway', deps: ['@idv/kit', '@idv/contracts', 'express', 'zod', 'undici', 'ioredis'] },
  'services/sessions': { name: '@idv/sessions', deps: ['@idv/kit', '@idv/contracts', 'express', 'zod', 'qrcode'] },
  'services/webhooks': { name: '@idv/webhooks', deps: ['@idv/kit', '@idv/contracts', 'express', 'zod', 'undici', 'ipaddr.js'] },
  'services/flow-runner': {
    name: '@idv/flow-runner',
    deps: ['@idv/kit', '@idv/contracts', 'express', 'zod', 'undici', 'nodemailer'],
  },
};
for (const [dir, d] of Object.entries(defs)) {
  const isService = dir.startsWith('services/');
  const pkg = {
    name: d.name,
    version: '0.1.0',
    private: true,
    type: 'commonjs',
    main: 'dist/index.js',
    types: 'dist/index.d.ts',
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      typecheck: 'tsc -p tsconfig.json --noEmit',
      lint: 'eslint . --max-warnings 0',
      test: 'jest --passWithNoTests',
      ...(isService ? { start: 'node dist/main.js' } : {}),
    },
    dependencies: {},
  };
  if (isService) {
    pkg.main = 'dist/main.js';
    delete pkg.types;
  }
  fs.mkdirSync(dir, { recursive: true });
  const path = `${dir}/package.json`;
  if (!fs.existsSync(path)) fs.writeFileSync(path, JSON.stringify(pkg, null, 2) + '\n');
  fs.writeFileSync(
    `${dir}/tsconfig.json`,
    JSON.stringify(
      {
        extends: '../../tsconfig.base.json',
        compilerOptions: { rootDir: '.', noEmit: true, types: ['node', 'jest'] },
        include: ['src', 'test'],
      },
      null,
      2,
    ) + '\n',
  );
  fs.writeFileSync(
    `${dir}/tsconfig.build.json`,
    JSON.stringify(
      {
        extends: '../../tsconfig.base.json',
        compilerOptions: { rootDir: 'src', outDir: 'dist', types: ['node'] },
        include: ['src'],
      },
      null,
      2,
    ) + '\n',
  );
  fs.writeFileSync(`${dir}/jest.config.js`, `module.exports = require('../../jest.preset.js');\n`);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, v.deps]))));
