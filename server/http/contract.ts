/**
 * The routes' side of the contract: each route declares the schemas of its operation in
 * api/openapi.yaml (path parameters, query and body, checked by validation.ts before the handler
 * runs), and takes its request and reply types from api/schema.ts, generated from the same file.
 */
import type { FastifySchema } from 'fastify';
import type { operations } from '../../api/schema.ts';
import { openApiDocument, optionalBody } from './validation.ts';

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Json;
}

/** The document's own `$ref`s (`#/components/...`) as Ajv knows them: inside the schema `openapi`. */
function inContract<T>(value: T): T {
  if (Array.isArray(value)) return value.map(inContract) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#')
        ? `openapi${inner}`
        : inContract(inner),
    ]),
  ) as T;
}

/** A `$ref` to somewhere in the document, followed. */
function resolve<T>(value: T | { $ref: string }): T {
  const ref = (value as { $ref?: string }).$ref;
  if (ref === undefined) return value as T;
  let found: unknown = openApiDocument;
  for (const key of ref.slice(2).split('/'))
    found = (found as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  return found as T;
}

/** Parameters of one place as one object schema, in the order the contract lists them. */
function objectOf(parameters: Parameter[]): Json {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, inContract(p.schema)])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
}

/**
 * The schemas of the operation at `method` and `path` (as the contract writes it, `/stream/{session_id}`)
 * for a Fastify route's `schema`. Throws at start-up for an operation the contract does not have.
 */
function operationSchema(method: 'get' | 'post' | 'delete', path: string): FastifySchema {
  const operation = ((openApiDocument.paths as Json)[path] as Json | undefined)?.[method] as Json | undefined;
  if (!operation) throw new Error(`api/openapi.yaml has no ${method.toUpperCase()} ${path}`);
  const parameters = ((operation.parameters ?? []) as Parameter[]).map(resolve);
  const schema: FastifySchema = {};
  const params = parameters.filter((p) => p.in === 'path');
  const query = parameters.filter((p) => p.in === 'query');
  if (params.length > 0) schema.params = objectOf(params);
  if (query.length > 0) schema.querystring = objectOf(query);
  const body = operation.requestBody as
    { required?: boolean; content: Record<string, { schema: Json }> } | undefined;
  const json = body?.content['application/json']?.schema;
  if (json) schema.body = body?.required ? inContract(json) : optionalBody(inContract(json));
  return schema;
}

/** A route's method, Fastify path (`:id` for the contract's `{id}`) and schemas, from the contract. */
export function contractRoute(method: 'get' | 'post' | 'delete', path: string) {
  return {
    method: method.toUpperCase() as 'GET' | 'POST' | 'DELETE',
    url: path.replace(/\{(\w+)\}/g, ':$1'),
    schema: operationSchema(method, path),
  };
}

type Operation = operations[keyof operations];

/** The JSON answers of an operation, by status, as Fastify's `Reply` takes them. */
type Replies<O extends Operation> = {
  [S in keyof O['responses']]: O['responses'][S] extends { content: { 'application/json': infer T } }
    ? T
    : undefined;
};

/**
 * Fastify's route types for an operation of the contract, by its `operationId`: path parameters,
 * query, body and answers.
 */
export interface RouteOf<K extends keyof operations> {
  Params: NonNullable<operations[K]['parameters']['path']>;
  Querystring: NonNullable<operations[K]['parameters']['query']>;
  Body: operations[K] extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : operations[K] extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B
      : undefined;
  Reply: Replies<operations[K]>;
}
