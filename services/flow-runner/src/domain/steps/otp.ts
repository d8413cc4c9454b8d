import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { OtpEmailStepSchema, OtpWhatsappStepSchema } from '@idv/contracts';
import { z } from 'zod';
import { formatArMobile, normalizeArMobile } from '../phone';
import { REASON_CODES, type ReasonCode } from '../reason-codes';
import type { FormFeedback } from '../view';
import type { OtpChannel, OtpRecord, StepContext, StepModule, StepOutcome } from './types';

type OtpEmailStep = z.infer<typeof OtpEmailStepSchema>;
type OtpWhatsappStep = z.infer<typeof OtpWhatsappStepSchema>;
type OtpStep = OtpEmailStep | OtpWhatsappStep;

/** The code rules of the issue; every period is multiplied by TIME_SCALE, the counts are not. */
export const OTP_RULES = {
  validityMs: 10 * 60_000,
  resendCooldownMs: 30_000,
  maxWrongAttempts: 5,
  maxResends: 3,
} as const;

/** The code accepted in test mode, where nothing is sent. */
export const TEST_MODE_CODE = '000000';

const scaledMs = (ms: number, timeScale: number) => Math.max(1, Math.round(ms * timeScale));

export function hashCode(code: string): string {
  const salt = randomBytes(16).toString('hex');
  return `${salt}:${createHash('sha256').update(`${salt}:${code}`).digest('hex')}`;
}

export function codeMatches(code: string, stored: string): boolean {
  const [salt, digest] = stored.split(':');
  if (!salt || !digest) return false;
  const candidate = createHash('sha256').update(`${salt}:${code}`).digest();
  const expected = Buffer.from(digest, 'hex');
  return expected.length === candidate.length && timingSafeEqual(candidate, expected);
}

export const generateCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

const EmailSchema = z.email().max(254);

interface ChannelSpec {
  channel: OtpChannel;
  verifiedKey: 'email' | 'phone';
  attemptsReason: ReasonCode;
  expiredReason: ReasonCode;
  /** The normalized destination, or null when the input is not acceptable. */
  normalize(input: string): string | null;
  display(destination: string): string;
}

const EMAIL: ChannelSpec = {
  channel: 'email',
  verifiedKey: 'email',
  attemptsReason: REASON_CODES.emailCodeAttemptsExceeded,
  expiredReason: REASON_CODES.emailCodeExpired,
  normalize: (input) => {
    const value = input.trim();
    if (!EmailSchema.safeParse(value).success) return null;
    const at = value.lastIndexOf('@');
    return `${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`;
  },
  display: (destination) => destination,
};

const WHATSAPP: ChannelSpec = {
  channel: 'whatsapp',
  verifiedKey: 'phone',
  attemptsReason: REASON_CODES.phoneCodeAttemptsExceeded,
  expiredReason: REASON_CODES.phoneCodeExpired,
  normalize: normalizeArMobile,
  display: formatArMobile,
};

function otpModule<S extends OtpStep>(type: S['type'], spec: ChannelSpec): StepModule<S> {
  const copy = (ctx: StepContext<S>) =>
    spec.channel === 'email'
      ? { title: ctx.t.emailTitle, label: ctx.t.emailLabel, hint: ctx.t.emailHint, invalid: ctx.t.errEmail }
      : { title: ctx.t.phoneTitle, label: ctx.t.phoneLabel, hint: ctx.t.phoneHint, invalid: ctx.t.errPhone };

  const sendsLeft = (record: OtpRecord | null) => (record ? 1 + OTP_RULES.maxResends - record.sends : 1 + OTP_RULES.maxResends);

  /**
   * Issues a new code to `destination` unless the cooldown or the resend limit forbids it. The send
   * is counted (checkpointed) before the code leaves, so concurrent submissions cannot send more
   * codes than the rules allow; a provider failure gives the send back.
   */
  async function issue(ctx: StepContext<S>, destination: string, typed: string | null): Promise<StepOutcome> {
    const previous = ctx.state.otp;
    const values = { destination: typed ?? '' };
    const now = ctx.now.getTime();
    if (previous && sendsLeft(previous) <= 0) return { kind: 'stay', feedback: { alert: ctx.t.errNoResends, values } };
    if (previous) {
      const readyAt = previous.lastSentAt + scaledMs(OTP_RULES.resendCooldownMs, ctx.timeScale);
      if (now < readyAt) {
        const seconds = Math.max(1, Math.ceil((readyAt - now) / 1000));
        return { kind: 'stay', feedback: { alert: ctx.t.errCooldown(seconds), values } };
      }
    }
    const code = ctx.mode === 'test' ? TEST_MODE_CODE : generateCode();
    const previousPhase = ctx.state.phase;
    ctx.state.otp = {
      channel: spec.channel,
      destination,
      codeHash: hashCode(code),
      expiresAt: now + scaledMs(OTP_RULES.validityMs, ctx.timeScale),
      lastSentAt: now,
      sends: (previous?.sends ?? 0) + 1,
      attempts: previous?.attempts ?? 0,
    };
    ctx.state.phase = 'code';
    if (ctx.mode === 'live') {
      await ctx.ports.checkpoint();
      const sent = await ctx.ports.sendCode(spec.channel, destination, code, ctx.locale);
      if (!sent.ok) {
        // The provider's failure is logged by the adapter; the person is told to try again, nothing is counted.
        if (previous) ctx.state.otp = previous;
        else delete ctx.state.otp;
        if (previousPhase === undefined) delete ctx.state.phase;
        else ctx.state.phase = previousPhase;
        return { kind: 'stay', feedback: { alert: ctx.t.errSendFailed, values } };
      }
    }
    return { kind: 'stay', feedback: previous ? { info: ctx.t.codeResent } : {} };
  }

  function verify(ctx: StepContext<S>, code: string): StepOutcome {
    if (!/^\d{6}$/.test(code)) return { kind: 'stay', feedback: { errors: { code: ctx.t.errCodeFormat } } };
    const record = ctx.state.otp;
    if (!record) {
      ctx.state.phase = 'destination';
      return { kind: 'stay', feedback: { alert: ctx.t.errNoCode } };
    }
    if (record.attempts >= OTP_RULES.maxWrongAttempts) return { kind: 'failed', reason: spec.attemptsReason };
    if (ctx.now.getTime() >= record.expiresAt) {
      if (sendsLeft(record) <= 0) return { kind: 'failed', reason: spec.expiredReason };
      return { kind: 'stay', feedback: { errors: { code: ctx.t.errCodeExpired } } };
    }
    if (codeMatches(code, record.codeHash)) {
      return { kind: 'passed', verified: { [spec.verifiedKey]: record.destination } };
    }
    const attempts = record.attempts + 1;
    ctx.state.otp = { ...record, attempts };
    if (attempts >= OTP_RULES.maxWrongAttempts) return { kind: 'failed', reason: spec.attemptsReason };
    return { kind: 'stay', feedback: { errors: { code: ctx.t.errCodeWrong(OTP_RULES.maxWrongAttempts - attempts) } } };
  }

  return {
    type,
    render(ctx, feedback: FormFeedback) {
      const text = copy(ctx);
      const record = ctx.state.phase === 'code' ? ctx.state.otp : undefined;
      if (!record) {
        return {
          title: text.title,
          body: { kind: 'otp_destination', channel: spec.channel, label: text.label, hint: text.hint, feedback },
        };
      }
      return { title: text.title, body: { kind: 'otp_code', sentTo: spec.display(record.destination), feedback } };
    },
    async accept(ctx, input) {
      switch (input.action ?? '') {
        case 'send': {
          const destination = spec.normalize(input.destination ?? '');
          if (!destination) {
            return {
              kind: 'stay',
              feedback: { errors: { destination: copy(ctx).invalid }, values: { destination: input.destination ?? '' } },
            };
          }
          return issue(ctx, destination, input.destination ?? '');
        }
        case 'resend': {
          const record = ctx.state.otp;
          if (!record) {
            ctx.state.phase = 'destination';
            return { kind: 'stay' };
          }
          return issue(ctx, record.destination, null);
        }
        case 'change':
          ctx.state.phase = 'destination';
          return { kind: 'stay' };
        case 'verify':
          return verify(ctx, (input.code ?? '').replace(/\s/g, ''));
        default:
          return { kind: 'stay' };
      }
    },
  };
}

export const otpEmailStep = otpModule<OtpEmailStep>('otp_email', EMAIL);
export const otpWhatsappStep = otpModule<OtpWhatsappStep>('otp_whatsapp', WHATSAPP);
