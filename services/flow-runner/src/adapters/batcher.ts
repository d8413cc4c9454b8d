// The batcher is the kit's (one for every service); this module keeps the flow-runner's import path.
export { Batcher, ItemFailure, type BatcherOptions } from '@idv/kit';
