import type { EvidenceArtifact, EvidenceDownloadOutcome } from '@idv/contracts';

/** A session's captured images (its page's section, the images page) and its evidence links' uses in the access trail. */
export interface SessionImagesMessages {
  /** The session page's section. */
  title: string;
  hidden: string;
  forbidden: string;
  show: string;
  showNote: string;
  /** The page the "show" POST answers. */
  pageTitle: (sessionId: string) => string;
  lead: string;
  back: string;
  none: string;
  removed: (at: string) => string;
  artifacts: Record<EvidenceArtifact, string>;
  /** Alt text of an image: what it is, of which session. */
  alt: (artifact: string, sessionId: string) => string;
  capturedAt: (at: string) => string;
  /** The access trail's lines of an evidence link's use (the public API's download, not a member). */
  trail: {
    who: string;
    outcomes: Record<EvidenceDownloadOutcome, (artifact: string) => string>;
    imageOpened: (artifact: string) => string;
  };
  auditActions: Record<string, string>;
}

const es: SessionImagesMessages = {
  title: 'Imágenes capturadas',
  hidden: 'Las fotos del documento y del rostro no se muestran hasta que las pidas; cada imagen que se abre queda registrada.',
  forbidden: 'Tu rol no puede ver las imágenes.',
  show: 'Mostrar las imágenes',
  showNote: 'Queda registrado en el historial de accesos de la sesión, y también cada imagen que se abre.',
  pageTitle: (sessionId) => `Imágenes de ${sessionId}`,
  lead: 'La última captura de cada foto que la persona mandó. Cada vez que se abre una imagen queda registrado quién la vio.',
  back: 'Volver a la sesión',
  none: 'Esta sesión no tiene imágenes guardadas.',
  removed: (at) => `Las imágenes se borraron el ${at}, al terminar su plazo de conservación.`,
  artifacts: {
    front: 'Frente del documento',
    back: 'Dorso del documento',
    front_angle: 'Frente del documento, inclinado',
    selfie: 'Foto del rostro',
  },
  alt: (artifact, sessionId) => `${artifact}, capturada en la sesión ${sessionId}`,
  capturedAt: (at) => `Capturada el ${at}`,
  trail: {
    who: 'Un enlace de evidencia (API)',
    outcomes: {
      served: (artifact) => `Descargó con un enlace de evidencia: ${artifact}`,
      expired: (artifact) => `Usó un enlace de evidencia vencido (no se entregó): ${artifact}`,
      bad_signature: (artifact) => `Usó un enlace de evidencia con la firma alterada (no se entregó): ${artifact}`,
    },
    imageOpened: (artifact) => `Abrió una imagen de una sesión: ${artifact}`,
  },
  auditActions: {
    'session.image_opened': 'Abrió una imagen de una sesión',
  },
};

const en: SessionImagesMessages = {
  title: 'Captured images',
  hidden: 'The photos of the document and the face are not shown until you ask for them; each image opened is recorded.',
  forbidden: 'Your role cannot see the images.',
  show: 'Show the images',
  showNote: "It is recorded in the session's access trail, and so is each image opened.",
  pageTitle: (sessionId) => `Images of ${sessionId}`,
  lead: 'The latest capture of each photo the person sent. Each time an image is opened, who saw it is recorded.',
  back: 'Back to the session',
  none: 'This session keeps no images.',
  removed: (at) => `The images were removed on ${at}, at the end of their retention period.`,
  artifacts: {
    front: 'Front of the document',
    back: 'Back of the document',
    front_angle: 'Front of the document, tilted',
    selfie: 'Photo of the face',
  },
  alt: (artifact, sessionId) => `${artifact}, captured in session ${sessionId}`,
  capturedAt: (at) => `Captured on ${at}`,
  trail: {
    who: 'An evidence link (API)',
    outcomes: {
      served: (artifact) => `Downloaded through an evidence link: ${artifact}`,
      expired: (artifact) => `Used an expired evidence link (nothing sent): ${artifact}`,
      bad_signature: (artifact) => `Used an evidence link with an altered signature (nothing sent): ${artifact}`,
    },
    imageOpened: (artifact) => `Opened an image of a session: ${artifact}`,
  },
  auditActions: {
    'session.image_opened': 'Opened an image of a session',
  },
};

export const SESSION_IMAGES_MESSAGES = { es, en } as const;
