import { contract } from '../../src/http/contract-ref.js';
import { Router } from '../../src/http/router.js';

/** The twin of route-shape.fail.ts: the same route answering the shape it declares. */
new Router().route(
  {
    method: 'POST',
    path: '/api/v1/planted',
    summary: 'a planted right answer',
    query: contract('ActionCallQuerySchema'),
    response: { 202: { description: 'started', schema: contract('ActionCallAnswerSchema') } },
  },
  ({ query }) => ({ status: 202, body: { status_ids: [query.id.length] } }),
);
