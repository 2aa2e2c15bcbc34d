/**
 * Generates api/schema.ts, the TypeScript types of the service and the portal, from api/openapi.yaml.
 * `--check` fails (exit 1) when the committed file is stale instead of writing it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';

const source = new URL('../api/openapi.yaml', import.meta.url);
const target = new URL('../api/schema.ts', import.meta.url);
const header = '// Generated from api/openapi.yaml by `npm run gen:api`. Do not edit.\n\n';

const ast = await openapiTS(source);
const generated = header + astToString(ast);

if (process.argv.includes('--check')) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== generated) {
    console.error('api/schema.ts is stale: run `npm run gen:api` and commit the result.');
    process.exit(1);
  }
  console.log('api/schema.ts matches api/openapi.yaml.');
} else {
  await writeFile(target, generated);
  console.log('wrote api/schema.ts');
}
