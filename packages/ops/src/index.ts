export * from './client';
export * from './demo';
