import { contract } from '../../src/http/contract-ref.js';
import { Router } from '../../src/http/router.js';

/**
 * A handler answering another shape than its route declares: the status ids as text where the
 * contract (ActionCallAnswerSchema) says integers. `npm run build` never compiles this file
 * (tsconfig.json excludes test/types/); test/http/route-shape.test.ts does, and expects the error.
 * Its twin route-shape.ok.ts is the same route answering the declared shape.
 */
new Router().route(
  {
    method: 'POST',
    path: '/api/v1/planted',
    summary: 'a planted wrong answer',
    query: contract('ActionCallQuerySchema'),
    response: { 202: { description: 'started', schema: contract('ActionCallAnswerSchema') } },
  },
  ({ query }) => ({ status: 202, body: { status_ids: [query.id] } }),
);
