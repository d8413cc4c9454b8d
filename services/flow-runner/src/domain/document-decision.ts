import type { DocumentData } from '@idv/contracts';
import { combineSides, type DocumentFields, type SideReading } from '@idv/verification';
import { REASON_CODES, type ReasonCode } from './reason-codes';
import type { RegistryQuery } from './registry';
import type { DocumentKind, DocumentProgress, DocumentVerdict } from './steps/document-state';

const DOCUMENT_REASONS = new Set<string>(Object.values(REASON_CODES));

/** `result.document` from what was read: every field the spec lists, empty where the document has none. */
export function toDocumentData(fields: DocumentFields): DocumentData {
  return {
    doc_type: fields.doc_type ?? '',
    series: fields.series ?? '',
    number: fields.number ?? '',
    surname: fields.surname ?? '',
    given_names: fields.given_names ?? '',
    sex: fields.sex ?? '',
    birth_date: fields.birth_date ?? '',
    cuil: fields.cuil ?? '',
    expiry_date: fields.expiry_date ?? '',
  };
}

/**
 * What the registry is asked about a document that passed its own checks; null when a field it needs
 * was not read (the readability check asks for them, so only an odd document gets here).
 */
export function toRegistryQuery(fields: DocumentFields, type: DocumentKind | undefined): RegistryQuery | null {
  const documentType =
    type ??
    (fields.doc_type === 'dni' || fields.doc_type === 'passport' || fields.doc_type === 'licence' ? fields.doc_type : null);
  if (!documentType || !fields.number || !fields.surname || !fields.given_names || !fields.birth_date) return null;
  return {
    document_type: documentType,
    number: fields.number,
    sex: fields.sex === 'M' || fields.sex === 'F' || fields.sex === 'X' ? fields.sex : null,
    surname: fields.surname,
    given_names: fields.given_names,
    birth_date: fields.birth_date,
    tramite: fields.tramite,
    series: fields.series,
  };
}

/**
 * The document's verdict once every side was accepted: the cross-checks over the readings stored for
 * its sides (no image is read again), the document's data and, when the step asks, the registry query.
 */
export function decideDocument(
  readings: readonly SideReading[],
  input: { progress: DocumentProgress; acceptedTypes: DocumentKind[]; registryCheck: boolean; today: string },
): DocumentVerdict {
  const reading = combineSides([...readings], {
    acceptedTypes: input.acceptedTypes,
    today: input.today,
    ...(input.progress.type ? { expectedType: input.progress.type } : {}),
  });
  const checks = reading.checks.map((check) => ({
    name: check.name,
    verdict: check.verdict,
    ...(check.reason ? { reason: check.reason } : {}),
    ...(check.fields ? { fields: [...check.fields] } : {}),
  }));
  const reason = reading.reasons.find((code) => DOCUMENT_REASONS.has(code)) as ReasonCode | undefined;
  if (reason) return { kind: 'failed', reason, checks };
  return {
    kind: 'passed',
    document: toDocumentData(reading.fields),
    checks,
    registry: input.registryCheck ? toRegistryQuery(reading.fields, input.progress.type) : null,
  };
}
