/**
 * The API reference of the user guide (docs/guide/api-reference.md), rendered from the OpenAPI 3.1
 * document the daemon serves (GET /api/v1/openapi.json, built from the routing table and the
 * contracts of src/contracts/). `node dist/scripts/api-reference.js` regenerates the file;
 * test/http/openapi-daemon.test.ts checks it against a running daemon's document.
 */

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

interface Operation {
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>;
}

export interface OpenApiDocument {
  info?: { title?: string };
  paths: Record<string, Record<string, Operation>>;
}

const METHOD_ORDER = ['get', 'put', 'post', 'patch', 'delete'];

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replaceAll('\n', ' ').replaceAll('|', '\\|').trim();
}

/** The type of a schema in a few words (`integer 1..3600`, `string`, `one of a, b`). */
function typeOf(schema: Record<string, unknown> | undefined): string {
  if (!schema) return '';
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => `\`${String(value)}\``).join(', ')}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type ?? 'any');
  const min = schema.minimum;
  const max = schema.maximum;
  if (typeof min === 'number' && typeof max === 'number') return `${type} ${min}..${max}`;
  return type;
}

const OTHER = 'Other paths';

/** The group of a path: its first segment after /api/v1/ (`/api/v1/meters/{id}` -> meters), else one group. */
function groupOf(path: string): string {
  const api = /^\/api\/v1\/([^/]+)/.exec(path);
  return api ? `/api/v1/${api[1]!.replace(/\.json$/, '')}` : OTHER;
}

/** The web interface's own files: listed by name only. */
function isInterfaceFile(op: Operation): boolean {
  return (op.summary ?? '').startsWith('Web interface: ');
}

/** Top-level fields of a JSON request body, when the schema names them. */
function bodyFields(schema: Record<string, unknown> | undefined): string[] {
  const properties = schema?.properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.keys(properties as Record<string, unknown>);
}

function renderOperation(method: string, path: string, op: Operation): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, '', cell(op.summary ?? ''), ''];
  const parameters = op.parameters ?? [];
  if (parameters.length > 0) {
    lines.push('| parameter | in | type | meaning |', '| --- | --- | --- | --- |');
    for (const parameter of parameters)
      lines.push(
        `| \`${parameter.name}\` | ${parameter.in}${parameter.required ? ', required' : ''} | ${cell(typeOf(parameter.schema))} | ${cell(parameter.description ?? String(parameter.schema?.description ?? ''))} |`,
      );
    lines.push('');
  }
  const body = op.requestBody?.content;
  if (body) {
    const types = Object.keys(body);
    const fields = types.flatMap((type) => bodyFields(body[type]?.schema));
    lines.push(
      `Request body: ${types.map((type) => `\`${type}\``).join(', ')}${fields.length > 0 ? `, fields ${fields.map((field) => `\`${field}\``).join(', ')}` : ''}.`,
      '',
    );
  }
  const responses = Object.entries(op.responses ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (responses.length > 0) {
    lines.push('| status | answer |', '| --- | --- |');
    for (const [status, response] of responses) {
      const types = Object.keys(response.content ?? {});
      const kind = types.length > 0 ? ` (${types.map((type) => `\`${type}\``).join(', ')})` : '';
      lines.push(`| ${status} | ${cell(response.description ?? '')}${kind} |`);
    }
    lines.push('');
  }
  return lines;
}

/** The whole reference: one section per endpoint group, one subsection per operation. */
export function apiReferenceMarkdown(doc: OpenApiDocument): string {
  const groups = new Map<string, Array<[string, string, Operation]>>();
  const interfaceFiles: string[] = [];
  for (const path of Object.keys(doc.paths).sort()) {
    const operations = doc.paths[path]!;
    const methods = Object.keys(operations).sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
    for (const method of methods) {
      if (isInterfaceFile(operations[method]!)) {
        interfaceFiles.push(`\`${method.toUpperCase()} ${path}\``);
        continue;
      }
      const group = groupOf(path);
      const list = groups.get(group) ?? [];
      list.push([method, path, operations[method]!]);
      groups.set(group, list);
    }
  }
  const lines = [
    '# API reference',
    '',
    '<!-- Generated from the OpenAPI document the daemon serves (GET /api/v1/openapi.json, built from',
    'src/contracts/ and the routing table) by `npm run build && node dist/scripts/api-reference.js`;',
    'test/http/openapi-daemon.test.ts checks that it is current. -->',
    '',
    'Every endpoint the daemon serves, with its parameters and answers. The full JSON Schemas are in the',
    'OpenAPI 3.1 document the daemon serves at `GET /api/v1/openapi.json`. With `system.protection` on,',
    'every endpoint needs HTTP Digest or Basic authentication (401 otherwise); the user name is ignored.',
    'How the API behaves beside the endpoints: [operations](operations.md#http-api-and-other-outputs).',
    '',
  ];
  const order = [...groups.keys()].filter((group) => group !== OTHER).sort();
  if (groups.has(OTHER)) order.push(OTHER);
  for (const group of order) {
    lines.push(`## ${group}`, '');
    for (const [method, path, op] of groups.get(group)!) lines.push(...renderOperation(method, path, op));
  }
  if (interfaceFiles.length > 0)
    lines.push(
      '## Web interface files',
      '',
      `Served from memory with an ETag (304 on If-None-Match) and gzip when accepted: ${interfaceFiles.join(', ')}.`,
      '',
    );
  return `${lines.join('\n').trimEnd()}\n`;
}
