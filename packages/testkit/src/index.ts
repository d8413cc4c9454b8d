export * from './client';
export * from './env';
export * from './stack';
export * from './wait';
export * from './jobs';
export * from './tcp-proxy';
export * from './openapi-validator';
export * from './private-database';
