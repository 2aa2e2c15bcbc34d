/**
 * The routes' side of the contract: a route is named once, by its `operationId` in api/openapi.yaml, and
 * gets from that operation its method, its path, the schemas of its request (path parameters, query and
 * body, checked by validation.ts before the handler runs), the schemas of its JSON answers (written by
 * Fastify's serializer, which leaves out any field the contract does not name) and its types, from
 * api/schema.ts, generated from the same file.
 */
import type {
  FastifyInstance,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteShorthandOptionsWithHandler,
} from 'fastify';
import type { operations } from '../../api/schema.ts';
import { compileValidator, openApiDocument, optionalBody } from './validation.ts';

type Json = Record<string, unknown>;
type Method = 'get' | 'post' | 'put' | 'delete';

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

/**
 * A schema with every `$ref` replaced by what it names, for the serializer, which knows nothing of the
 * document (the contract's schemas hold no cycle).
 */
function dereference<T>(value: T): T {
  if (Array.isArray(value)) return value.map(dereference) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (typeof (value as { $ref?: unknown }).$ref === 'string') return dereference(resolve(value));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, dereference(inner)])) as T;
}

/** Parameters of one place as one object schema, in the order the contract lists them. */
function objectOf(parameters: Parameter[]): Json {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, inContract(p.schema)])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
}

/** The JSON answers of an operation by status; answers of another kind (a picture, none) have no schema. */
function responseSchemas(responses: Json): Record<string, Json> {
  const schemas: Record<string, Json> = {};
  for (const [status, response] of Object.entries(responses)) {
    const content = resolve(response as Json).content as Record<string, { schema: Json }> | undefined;
    const json = content?.['application/json']?.schema;
    if (json) schemas[status] = dereference(json);
  }
  return schemas;
}

/** The schemas of one operation for a Fastify route's `schema`. */
function operationSchema(operation: Json): FastifySchema {
  const parameters = ((operation.parameters ?? []) as Parameter[]).map(resolve);
  const schema: FastifySchema = { response: responseSchemas(operation.responses as Json) };
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

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify's form: `:id` for the contract's `{id}`. */
  url: string;
  schema: FastifySchema;
}

/** Every operation of the contract by its `operationId`, read once. */
const byId = new Map<string, Operation>();
for (const [path, item] of Object.entries(openApiDocument.paths as Record<string, Json>)) {
  for (const method of ['get', 'post', 'put', 'delete'] as const satisfies Method[]) {
    const operation = item[method] as Json | undefined;
    if (!operation) continue;
    byId.set(String(operation.operationId), {
      method: method.toUpperCase() as Operation['method'],
      url: path.replace(/\{(\w+)\}/g, ':$1'),
      schema: operationSchema(operation),
    });
  }
}

/** The method, Fastify path and schemas of an operation; throws at start-up for one the contract lacks. */
export function operationRoute(operationId: string): Operation {
  const found = byId.get(operationId);
  if (!found) throw new Error(`api/openapi.yaml has no operation "${operationId}"`);
  return found;
}

type Operations = operations[keyof operations];

/** An operation's answers by status, as Fastify's `Reply` takes them: JSON bodies typed, others as bytes. */
type Replies<O extends Operations> = {
  [S in keyof O['responses']]: O['responses'][S] extends { content: { 'application/json': infer T } }
    ? T
    : O['responses'][S] extends { content: object }
      ? Buffer
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

/** What a contract route adds to its operation: its hooks and handler, typed by the operation. */
export type ContractRouteOptions<K extends keyof operations> = RouteShorthandOptionsWithHandler<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteOf<K>
>;

/**
 * Registers the route of the operation `operationId` on `app`: method, path and schemas come from the
 * contract, the request is checked against it (validation.ts) and JSON answers are written by its schemas.
 */
export function contractRoute<K extends keyof operations>(
  app: FastifyInstance,
  operationId: K,
  options: ContractRouteOptions<K>,
): void {
  app.route<RouteOf<K>>({
    ...operationRoute(operationId),
    validatorCompiler: compileValidator,
    ...options,
  });
}
