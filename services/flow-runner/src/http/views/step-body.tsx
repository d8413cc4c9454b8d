import type { Messages } from '../../domain/i18n';
import type { StepBody } from '../../domain/view';
import type { FormTarget } from './common';
import { ChoiceView } from './choice';
import { ConsentView } from './consent';
import { DocumentSideView, DocumentTypeView } from './document';
import { FaceCameraView, FaceIntroView, FaceUploadView } from './face';
import { FormView } from './form';
import { OtpCodeView, OtpDestinationView } from './otp';
import { WaitingView } from './waiting';

/** The view of each kind of step page (`StepBody`, decided by the step modules of `domain/steps/`). */
export function StepBodyView(props: { t: Messages; to: FormTarget; body: StepBody }) {
  const { t, to, body } = props;
  switch (body.kind) {
    case 'consent':
      return <ConsentView t={t} to={to} body={body} />;
    case 'choice':
      return <ChoiceView t={t} to={to} body={body} />;
    case 'form':
      return <FormView t={t} to={to} body={body} />;
    case 'otp_destination':
      return <OtpDestinationView t={t} to={to} body={body} />;
    case 'otp_code':
      return <OtpCodeView t={t} to={to} body={body} />;
    case 'document_type':
      return <DocumentTypeView t={t} to={to} body={body} />;
    case 'waiting':
      return <WaitingView sessionId={to.sessionId} body={body} />;
    case 'document_side':
      return <DocumentSideView t={t} to={to} body={body} />;
    case 'face_intro':
      return <FaceIntroView t={t} to={to} body={body} />;
    case 'face_camera':
      return <FaceCameraView t={t} to={to} body={body} />;
    case 'face_upload':
      return <FaceUploadView t={t} to={to} body={body} />;
  }
}
