import type { Messages } from '../../domain/i18n';
import type { StepBody } from '../../domain/view';
import { AlertBox, FlowForm, SamplesList, cameraAccessAttributes, type FormTarget } from './common';

export function DocumentTypeView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'document_type' }> }) {
  const t = props.t.document;
  return (
    <>
      <AlertBox feedback={props.body.feedback} />
      <FlowForm to={props.to}>
        <fieldset>
          <legend>{t.chooseType}</legend>
          {props.body.offered.map((kind, i) => (
            <div class="choice">
              <input type="radio" id={`f-type-${kind}`} name="type" value={kind} checked={i === 0} />
              <label for={`f-type-${kind}`}>{t.typeNames[kind]}</label>
            </div>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" name="action" value="choose_type" class="primary">
            {t.continue}
          </button>
        </div>
      </FlowForm>
    </>
  );
}

/** A side to photograph: the file input the camera script (`capture.js`) enhances, and its texts. */
export function DocumentSideView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'document_side' }> }) {
  const { body } = props;
  const t = props.t.document;
  return (
    <>
      {body.alert ? (
        <p class="alert" role="alert">
          {body.alert}
        </p>
      ) : null}
      {body.switchTo !== null ? (
        <FlowForm to={props.to} novalidate>
          <input type="hidden" name="type" value={body.switchTo} />
          <div class="actions">
            <button type="submit" name="action" value="change_type" class="secondary">
              {props.t.documentChecks.switchTo[body.switchTo]}
            </button>
          </div>
        </FlowForm>
      ) : null}
      <p>{t.sideHints[body.sideName]}</p>
      {body.attemptsLeft !== null ? <p class="hint">{t.attemptsLeft(body.attemptsLeft)}</p> : null}
      <FlowForm to={props.to} multipart>
        <input type="hidden" name="side" value={body.side} />
        <div
          class="field capture"
          data-capture={body.side}
          data-shoot={t.camera.shoot}
          data-hint-start={t.camera.start}
          data-hint-focus={t.camera.focus}
          data-hint-dark={t.camera.dark}
          data-hint-glare={t.camera.glare}
          data-hint-ready={t.camera.ready}
          data-uploading={t.camera.uploading}
          data-upload-failed={t.camera.uploadFailed}
          data-review={t.camera.review}
          data-holding={t.camera.holding}
          data-review-blurred={t.camera.reviewBlurred}
          data-shot-label={t.camera.shotLabel}
          data-send={t.camera.send}
          data-retake={t.camera.retake}
          data-use-file={t.camera.useFile}
          {...cameraAccessAttributes(props.t, t.camera.wayOn)}
        >
          <div data-capture-file="">
            <label for="f-capture">{t.fileLabel}</label>
            <p class="hint" id="h-capture">
              {t.fileHint}
            </p>
            <input
              type="file"
              id="f-capture"
              name="capture"
              accept="image/*"
              capture="environment"
              required
              aria-describedby="h-capture"
            />
          </div>
        </div>
        <div class="actions" data-capture-submit="">
          <button type="submit" name="action" value="upload" class="primary">
            {t.upload}
          </button>
        </div>
      </FlowForm>
      {body.otherType ? (
        <FlowForm to={props.to} novalidate>
          <div class="actions">
            <button type="submit" name="action" value="change_type" class="link">
              {props.t.documentChecks.another}
            </button>
          </div>
        </FlowForm>
      ) : null}
      {body.samples ? <SamplesList t={props.t} to={props.to} view={body.samples} /> : null}
    </>
  );
}
