import { Secret, TOTP } from 'otpauth';
import type { Page } from './browser';

/**
 * The code of the step `offsetSteps` after the one of `at` (now), as an authenticator app shows it. A test
 * that checks "this step's code works once, the next one's works" names the step it enrolled in: the 30 s
 * boundary may pass between two of its requests.
 */
export const codeAt = (secret: string, offsetSteps = 0, at = Date.now()) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at + offsetSteps * 30_000,
  });

/** The TOTP secret an enrolment page shows in text beside its QR. */
export const secretOn = (page: Page) => /class="secret-text">([A-Z2-7]+)</.exec(page.html)![1]!;
