import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { FRAME_LIMITS } from '@idv/faces/pure';
import type { SubmittedFiles } from '../domain/ports';
import { messages } from '../domain/i18n';
import { BadRequest } from './bad-request';
import type { UploadLease } from './upload-budget';

/** A photo is at most this big; the rest of a multipart form is a few small fields. */
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
/** A face attempt's frames together (`frame` files) may be bigger than one photo. */
export const MULTIPART_LIMIT_BYTES = Math.max(UPLOAD_LIMIT_BYTES, FRAME_LIMITS.maxTotalBytes) + 256 * 1024;
/**
 * What is still read and dropped of a body answered before it was read (refused, cut short), so that a
 * browser that finishes sending before it reads gets to read the answer: up to a whole submission, for
 * half a minute at most and 5 s without a byte (nginx's lingering close, the same idea).
 */
export const UNREAD_UPLOAD_BOUNDS = { maxBytes: MULTIPART_LIMIT_BYTES, maxMs: 30_000, maxIdleMs: 5_000 };
const MULTIPART_MAX_FIELDS = 20;
const MULTIPART_MAX_FIELD_BYTES = 4096;
/** Parts read before the rest are skipped: a face attempt's frames and fields, with room for a client that sends too many frames to be told so. */
const MULTIPART_MAX_PARTS = 300;

export interface SubmittedForm {
  fields: Record<string, string>;
  files: SubmittedFiles;
}

export interface MultipartRules {
  /**
   * Asked once, before the first byte of the first file part is kept, with the fields read so far (the
   * page's form sends its CSRF token first): a refusal ends the reading with it, nothing of any file kept.
   */
  admitFiles: (fields: Readonly<Record<string, string>>) => BadRequest | null;
  /** Every kept byte of a file is taken from it first; the caller releases it once the submission is over. */
  lease: UploadLease;
  /** The body must arrive at least this fast over each window, or the reading is cut (408). 0: no minimum. */
  minBytesPerSecond: number;
  rateWindowMs: number;
}

const incomplete = () =>
  new BadRequest(400, 'multipart body ended before its parts did', (locale) => messages(locale).upload.incomplete);
const tooSlow = () => new BadRequest(408, 'upload slower than the minimum rate', (locale) => messages(locale).upload.tooSlow);
const framesTooLarge = () =>
  new BadRequest(413, 'face frames over their limit', (locale) => messages(locale).face.refusals.too_large);
const photoTooLarge = () => new BadRequest(413, 'photo over 10 MB', (locale) => messages(locale).document.refusals.too_large);

/**
 * A multipart submission: the fields, and either one photo (`capture`, up to 10 MB) or a face attempt's
 * frames (`frame`, repeated, in order; each and all together within the face library's `FRAME_LIMITS`),
 * streamed into memory part by part. Nothing of a file is kept before `admitFiles` agreed, and each
 * kept byte is taken from the upload budget first. A part over its limit, a body over the budget, a
 * body cut anywhere (in a part's headers, a field, a file, before the closing boundary) or arriving
 * slower than the minimum rate ends the reading at once with a `BadRequest`; the caller answers it
 * without reading the rest. Frames beyond the count are not kept: the step tells the person (`overflow`).
 */
export function readMultipart(req: IncomingMessage, rules: MultipartRules): Promise<SubmittedForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fileSize: Math.max(UPLOAD_LIMIT_BYTES, FRAME_LIMITS.maxFrameBytes),
          files: FRAME_LIMITS.maxFrames,
          fields: MULTIPART_MAX_FIELDS,
          fieldSize: MULTIPART_MAX_FIELD_BYTES,
          parts: MULTIPART_MAX_PARTS,
        },
      });
    } catch {
      reject(new BadRequest(400, 'malformed multipart form'));
      return;
    }
    const fields: Record<string, string> = {};
    let upload: Buffer | undefined;
    const frames: Buffer[] = [];
    let framesBytes = 0;
    let overflow = false;
    let filesAdmitted = false;
    let settled = false;

    let windowBytes = 0;
    const watchdog =
      rules.minBytesPerSecond > 0
        ? setInterval(() => {
            if (windowBytes < (rules.minBytesPerSecond * rules.rateWindowMs) / 1000) fail(tooSlow());
            windowBytes = 0;
          }, rules.rateWindowMs)
        : undefined;
    watchdog?.unref();
    const countArrival = (chunk: Buffer) => {
      windowBytes += chunk.length;
    };
    // A client that goes away mid-body: busboy, left waiting for the rest, would never say so.
    const onRequestClosed = () => {
      if (!req.complete) fail(incomplete());
    };

    const stop = () => {
      settled = true;
      clearInterval(watchdog);
      req.off('data', countArrival).off('close', onRequestClosed);
    };
    const fail = (error: BadRequest) => {
      if (settled) return;
      stop();
      req.unpipe(parser);
      reject(error);
    };

    parser.on('field', (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      // A file part's stream errors when the body ends inside it: unhandled, that would end the process.
      stream.on('error', () => fail(incomplete()));
      if (settled || (name !== 'capture' && name !== 'frame')) {
        stream.resume();
        return;
      }
      if (!filesAdmitted) {
        const refusal = rules.admitFiles(fields);
        if (refusal) {
          stream.resume();
          fail(refusal);
          return;
        }
        filesAdmitted = true;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        bytes += chunk.length;
        if (name === 'frame' && (bytes > FRAME_LIMITS.maxFrameBytes || framesBytes + bytes > FRAME_LIMITS.maxTotalBytes)) {
          return fail(framesTooLarge());
        }
        if (name === 'capture' && upload !== undefined) return fail(new BadRequest(400, 'more than one photo'));
        const refusal = rules.lease.take(chunk.length);
        if (refusal) return fail(budgetRefusal(refusal));
        chunks.push(chunk);
      });
      stream.on('limit', () => fail(name === 'frame' ? framesTooLarge() : photoTooLarge()));
      stream.on('end', () => {
        if (settled) return;
        if (name === 'capture') upload = Buffer.concat(chunks);
        else {
          frames.push(Buffer.concat(chunks));
          framesBytes += bytes;
        }
      });
    });
    parser.on('filesLimit', () => {
      overflow = true;
    });
    parser.on('fieldsLimit', () => fail(new BadRequest(413, 'too many form fields')));
    parser.on('partsLimit', () => {
      // Only frames come in such numbers: the step says "too many"; anything else is refused.
      if (frames.length > 0) overflow = true;
      else fail(new BadRequest(413, 'too many form parts'));
    });
    parser.on('error', () => fail(incomplete()));
    parser.on('close', () => {
      if (settled) return;
      stop();
      const files: SubmittedFiles = {
        ...(upload ? { capture: upload } : {}),
        ...(frames.length > 0 || overflow ? { frames: { files: frames, overflow } } : {}),
      };
      resolve({ fields, files });
    });
    req.on('data', countArrival).on('close', onRequestClosed);
    req.pipe(parser);
  });
}

/** Past the process's bound every sender waits a moment; past an address's bound, that address does. */
function budgetRefusal(refusal: 'process' | 'address'): BadRequest {
  return new BadRequest(
    refusal === 'process' ? 503 : 429,
    `upload memory bound of the ${refusal} reached`,
    (locale) => messages(locale).upload.busy,
    { retryAfterSeconds: refusal === 'process' ? 5 : 10 },
  );
}
