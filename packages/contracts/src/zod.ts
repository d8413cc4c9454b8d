import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every schema in this package is built from this instance so `.openapi()` is always available.
extendZodWithOpenApi(z);

export { z };
