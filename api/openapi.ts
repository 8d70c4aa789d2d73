// The OpenAPI document, generated from the route declarations and the very schemas that validate requests.
import type { TSchema } from '@sinclair/typebox';
import type { ResponseSpec, RouteSpec } from './route.js';
import { errorResponses } from './shared/schemas.js';

export const API_PREFIX = '/rest/api/v1';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Moves every schema with an $id into components and refers to it from where it stood. */
const collect = (schema: TSchema, components: Record<string, Json>): Json => {
  const walk = (node: unknown): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      const entries = Object.entries(node as Record<string, unknown>);
      const id = (node as { $id?: unknown }).$id;
      const out: Record<string, Json> = {};
      for (const [k, v] of entries) if (k !== '$id') out[k] = walk(v);
      if (typeof id === 'string') {
        components[id] = out;
        return { $ref: `#/components/schemas/${id}` };
      }
      return out;
    }
    return node as Json;
  };
  return walk(schema);
};

const parametersOf = (spec: RouteSpec, components: Record<string, Json>): Json[] => {
  const params: Json[] = [];
  const add = (where: 'path' | 'query' | 'header', object: TSchema | undefined) => {
    const props = (object as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
    const required = new Set((object as { required?: string[] } | undefined)?.required ?? []);
    for (const [name, schema] of Object.entries(props)) {
      const { description } = schema as { description?: string };
      params.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(description ? { description } : {}),
        schema: collect(schema, components),
      });
    }
  };
  add('path', spec.params);
  add('query', spec.query);
  add('header', spec.headers);
  return params;
};

export const buildOpenApi = (specs: readonly RouteSpec[], version: string): Json => {
  const components: Record<string, Json> = {};
  const paths: Record<string, Record<string, Json>> = {};
  for (const spec of specs) {
    const responses: Record<string, Json> = {};
    // 400 on every operation: each refuses unknown query members, and a body sent where none is taken.
    const generic = { ...(spec.body ? errorResponses(413, 415) : {}), ...errorResponses(400, 500, 503), ...spec.responses };
    for (const [status, r] of Object.entries(generic) as [string, ResponseSpec][]) {
      const out: Record<string, Json> = { description: r.description };
      if (r.schema) out.content = { [r.contentType ?? 'application/json']: { schema: collect(r.schema, components) } };
      if (r.headers) {
        out.headers = Object.fromEntries(
          Object.entries(r.headers).map(([name, h]) => [name, { description: h.description, schema: collect(h.schema, components) }]),
        );
      }
      responses[status] = out;
    }
    const operation: Record<string, Json> = {
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      parameters: parametersOf(spec, components),
      responses,
      ...(spec.authenticated === false ? { security: [] } : {}),
    };
    if (spec.body) {
      operation.requestBody = {
        required: spec.bodyRequired ?? false,
        content: { 'application/json': { schema: collect(spec.body, components) } },
      };
    }
    (paths[spec.path] ??= {})[spec.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Copy-trading service',
      version,
      description:
        'Every path starts with /rest/api/v1. Errors are { "error": "[CODE]", "message": "..." }. Writes answer after the read models include them, so a GET right after sees the change. Every response carries X-Correlation-Id (send one to choose it).',
    },
    servers: [{ url: API_PREFIX }],
    security: [{ ApiKeyAuth: [] }],
    paths: paths as Json,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      schemas: components,
    },
  };
};
