export * from './background-job';
export * from './batcher';
export * from './listen';
export * from './metrics';
export * from './retention';
