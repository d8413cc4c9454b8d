import type { Messages } from '../../domain/i18n';
import { FACE_CAPTURE_SCRIPT_PATH } from '../../domain/steps/face';
import type { StepBody } from '../../domain/view';
import { AttemptHeader, FlowForm, SamplesList, cameraAccessAttributes, type FormTarget } from './common';

export function FaceIntroView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'face_intro' }> }) {
  const { body } = props;
  const t = props.t.face;
  return (
    <>
      <AttemptHeader alert={body.alert} attemptsLeft={body.attemptsLeft} say={t.attemptsLeft} />
      <p>{t.intro}</p>
      <noscript>
        <p class="alert" role="alert">
          {t.needsCamera(body.allowUpload)}
        </p>
      </noscript>
      <ul class="hints">
        {t.introHints.map((hint) => (
          <li>{hint}</li>
        ))}
      </ul>
      <FlowForm to={props.to} novalidate>
        <div class="actions">
          <button type="submit" name="action" value="start" class="primary">
            {t.startCamera}
          </button>
        </div>
      </FlowForm>
      {body.allowUpload ? (
        <FlowForm to={props.to} novalidate>
          <p class="hint">{t.uploadOffer}</p>
          <div class="actions">
            <button type="submit" name="action" value="start_upload" class="secondary">
              {t.startUpload}
            </button>
          </div>
        </FlowForm>
      ) : null}
    </>
  );
}

/** The camera challenge: the poses, and the element the face script (`face-capture.js`) runs in, with its texts. */
export function FaceCameraView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'face_camera' }> }) {
  const { body } = props;
  const { challenge, limits } = body;
  const t = props.t.face;
  const c = t.camera;
  return (
    <>
      <AttemptHeader alert={body.alert} attemptsLeft={body.attemptsLeft} say={t.attemptsLeft} />
      <p>{t.challengeIntro}</p>
      <ol class="face-steps">
        {challenge.steps.map((pose) => (
          <li>{t.poses[pose]}</li>
        ))}
      </ol>
      <div
        class="face-challenge"
        data-face-challenge=""
        data-nonce={challenge.nonce}
        data-steps={challenge.steps.join(',')}
        data-hold-ms={challenge.holdMs}
        data-window-ms={challenge.windowMs}
        data-issued-ago-ms={challenge.issuedAgoMs}
        data-expires-in-ms={challenge.expiresInMs}
        data-max-frames={limits.maxFrames}
        data-max-frame-bytes={limits.maxFrameBytes}
        data-max-total-bytes={limits.maxTotalBytes}
        data-action={`/s/${props.to.sessionId}`}
        data-pose-straight={t.poses.straight}
        data-pose-left={t.poses.left}
        data-pose-right={t.poses.right}
        data-text-ready={c.ready}
        data-text-closer={c.closer}
        data-text-center={c.center}
        data-text-several={c.several}
        data-text-light={c.light}
        data-text-turn-more={c.turnMore}
        data-text-hold={c.hold}
        data-text-done={c.done}
        data-text-uploading={c.uploading}
        data-text-upload-failed={c.uploadFailed}
        {...cameraAccessAttributes(props.t, t.cameraWayOn(body.allowUpload))}
        data-text-expired={t.reasons.expired}
        data-text-restart={c.restart}
      >
        <noscript>
          <p class="hint">{t.needsCamera(body.allowUpload)}</p>
        </noscript>
        <p class="hint" data-face-no-camera="" hidden></p>
        <div class="face-camera" data-face-camera="" hidden>
          <div class="face-viewport">
            <video data-face-video="" muted playsInline aria-label={c.videoLabel}></video>
            <div class="face-oval" data-face-oval="" aria-hidden="true"></div>
          </div>
          <p class="face-instruction" data-face-instruction="" aria-live="assertive"></p>
          <p class="face-hint" data-face-hint="" role="status" aria-live="polite"></p>
          <progress class="upload-progress" data-face-progress="" max={100} value={0} aria-label={c.uploading} hidden></progress>
        </div>
      </div>
      <FlowForm to={props.to} multipart novalidate>
        <input type="hidden" name="nonce" value={challenge.nonce} />
        <input type="hidden" name="at_ms" value="" />
        <input type="hidden" name="action" value="frames" />
      </FlowForm>
      <FlowForm to={props.to} novalidate>
        <div class="actions">
          <button type="submit" name="action" value={body.allowUpload ? 'start_upload' : 'restart'} class="link">
            {body.allowUpload ? t.switchToUpload : t.back}
          </button>
        </div>
      </FlowForm>
      {body.samples ? <SamplesList t={props.t} to={props.to} view={body.samples} /> : null}
      <script src={FACE_CAPTURE_SCRIPT_PATH} defer></script>
    </>
  );
}

/** The two-photo fallback: a straight photo and a turned one, taken with the phone's own camera app. */
export function FaceUploadView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'face_upload' }> }) {
  const { body } = props;
  const t = props.t.face;
  return (
    <>
      <AttemptHeader alert={body.alert} attemptsLeft={body.attemptsLeft} say={t.attemptsLeft} />
      <p>{t.uploadIntro}</p>
      <div
        class="face-upload"
        data-face-upload=""
        data-nonce={body.nonce}
        data-steps={body.steps.join(',')}
        data-hold-ms="0"
      ></div>
      <FlowForm to={props.to} multipart>
        <input type="hidden" name="nonce" value={body.nonce} />
        <div class="field">
          <label for="f-frame-straight">{t.uploadStraight}</label>
          <input type="file" id="f-frame-straight" name="frame" accept="image/*" capture="user" required />
        </div>
        <div class="field">
          <label for="f-frame-turned">{t.uploadTurned[body.turn]}</label>
          <input type="file" id="f-frame-turned" name="frame" accept="image/*" capture="user" required />
        </div>
        <div class="actions">
          <button type="submit" name="action" value="frames" class="primary">
            {t.uploadSend}
          </button>
        </div>
      </FlowForm>
    </>
  );
}
