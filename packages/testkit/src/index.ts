export * from './client';
export * from './env';
export * from './stack';
