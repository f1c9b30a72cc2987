const html = (text: unknown) => String(text ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  description?: string;
  format?: string;
  items?: Schema;
  enum?: unknown[];
  required?: string[];
}
type Media = Record<string, { schema?: Schema }>;
interface Operation {
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Media };
  responses?: Record<string, { description?: string; content?: Media }>;
}
/** The parts of an OpenAPI 3.1 document the page shows. */
export interface OpenApiDocumentView {
  openapi: string;
  info: { description?: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

function schemaLabel(schema: Schema | undefined): string {
  if (!schema) return '';
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return `<a href="#schema-${html(name)}">${html(name)}</a>`;
  }
  if (schema.enum) return schema.enum.map((v) => `<code>${html(v)}</code>`).join(' | ');
  if (schema.type === 'array') return `array of ${schemaLabel(schema.items)}`;
  return html([schema.type, schema.format].filter(Boolean).join(' '));
}

function fieldsTable(schema: Schema | undefined): string {
  if (!schema?.properties) return '';
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties)
    .map(
      ([name, field]) =>
        `<tr><td><code>${html(name)}</code>${required.has(name) ? ' *' : ''}</td><td>${schemaLabel(field)}</td><td>${html(field.description)}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>field</th><th>type</th><th>meaning</th></tr>${rows}</table>`;
}

/**
 * The API reference at `/docs`, rendered on the server from the same OpenAPI 3.1 document as
 * `/openapi.json`: every route with its parameters, body fields and responses, and every schema. A
 * page of our own rather than a hosted viewer, so it works offline and loads no third-party script.
 */
export function renderDocsPage(document: OpenApiDocumentView): string {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const params = (operation.parameters ?? [])
        .map((p) => `<li><code>${html(p.name)}</code> (${html(p.in)}) ${schemaLabel(p.schema)}</li>`)
        .join('');
      const body = operation.requestBody?.content ?? {};
      const bodies = Object.entries(body)
        .map(([type, media]) => {
          const ref = media.schema?.$ref?.split('/').pop();
          const schema = ref ? document.components?.schemas?.[ref] : media.schema;
          return `<p>body <code>${html(type)}</code>${ref ? ` (${schemaLabel(media.schema)})` : ''}</p>${fieldsTable(schema)}`;
        })
        .join('');
      const responses = Object.entries(operation.responses ?? {})
        .map(([status, response]) => {
          const media = Object.entries(response.content ?? {})[0];
          return `<li><b>${html(status)}</b> ${html(response.description)}${media ? ` — <code>${html(media[0])}</code> ${schemaLabel(media[1].schema)}` : ''}</li>`;
        })
        .join('');
      routes.push(
        `<section><h3><span class="m">${html(method.toUpperCase())}</span> <code>${html(path)}</code></h3><p>${html(operation.summary)}</p>${operation.security ? '<p>Bearer token required.</p>' : ''}${params ? `<ul>${params}</ul>` : ''}${bodies}<ul>${responses}</ul></section>`,
      );
    }
  }
  const schemas = Object.entries(document.components?.schemas ?? {})
    .map(
      ([name, schema]) =>
        `<section id="schema-${html(name)}"><h3>${html(name)}</h3>${fieldsTable(schema) || `<p>${schemaLabel(schema)}</p>`}<details><summary>JSON Schema</summary><pre>${html(JSON.stringify(schema, null, 2))}</pre></details></section>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>xsb API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f5f5f5;padding:.5rem;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:4.5rem;color:#fff;background:#335;padding:0 .4rem;border-radius:3px}section{border-top:1px solid #eee}</style>
</head><body><h1>xsb API reference</h1><p>${html(document.info.description)} The machine-readable document is at <a href="/openapi.json">/openapi.json</a> (OpenAPI ${html(document.openapi)}).</p>
<h2>Routes</h2>${routes.join('')}<h2>Schemas</h2>${schemas}</body></html>`;
}
