/**
 * What a browser bundle may take from the contracts (the dashboard's flow editor): the names a flow
 * configuration uses, without zod, the HTTP routes or the internal client. The configuration is checked
 * by the server, with the publication's own schema.
 */
export { DOCUMENT_KINDS } from './document-kinds';
export { SESSION_EVENT_TYPES } from './event-types';
