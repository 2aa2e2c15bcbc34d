/** POST /stream `arguments` against the version's declaration (CONTRACT §20), and the declaration served. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  standInCatalog,
  startMemoryApp,
  type MemoryTestApp,
} from '../../test-support/test-support.ts';

const DECLARED =
  'arguments: [{name: model, label: Model, type: choice, choices: [a.obj, b.obj], default: a.obj}, ' +
  '{name: scale, label: Scale, type: number}, {name: grid, label: Grid, type: boolean, required: true}, ' +
  '{name: title, label: Title, type: string}], ';

let t: MemoryTestApp;
beforeAll(async () => {
  // 1.9.0 declares four arguments, 1.10.0 none at all (`[]`), the others nothing: they take any.
  const catalog = standInCatalog()
    .replace('description: Nine., ', `description: Nine., ${DECLARED}`)
    .replace('description: Ten., ', 'description: Ten., arguments: [], ');
  t = await startMemoryApp({ catalog, tokens: true });
});
afterAll(async () => {
  await t.close();
});

async function post(version: string, args?: unknown) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: bearer('alice'),
    payload: {
      id: 'usd-viewer',
      profile: 'default',
      version,
      ...(args === undefined ? {} : { arguments: args }),
    },
  });
  return { status: res.statusCode, body: res.json() as { id?: string; detail?: unknown } };
}

describe('declared launch arguments', () => {
  it('serves each version with its declaration, and none where there is none', async () => {
    const res = await t.app.inject({ url: '/api/cfg/apps/usd-viewer/versions', headers: bearer('vera') });
    const items = (res.json() as { items: { version: string; arguments?: unknown }[] }).items;
    expect(items.find((v) => v.version === '1.9.0')?.arguments).toEqual([
      {
        name: 'model',
        label: 'Model',
        type: 'choice',
        choices: ['a.obj', 'b.obj'],
        default: 'a.obj',
        required: false,
      },
      { name: 'scale', label: 'Scale', type: 'number', required: false },
      { name: 'grid', label: 'Grid', type: 'boolean', required: true },
      { name: 'title', label: 'Title', type: 'string', required: false },
    ]);
    expect(items.find((v) => v.version === '1.10.0')).toEqual({ version: '1.10.0', arguments: [] });
    expect(items.find((v) => v.version === '2.0.0-rc.1')).toEqual({ version: '2.0.0-rc.1' });
  });

  it('refuses an unknown name, a wrong type, a value outside the choices and a missing one, each at its field', async () => {
    const { status, body } = await post('1.9.0', { model: 'c.obj', scale: 'big', title: 3, colour: 'red' });
    expect(status).toBe(422);
    expect(body.detail).toEqual([
      {
        loc: ['body', 'arguments', 'colour'],
        msg: 'USD Viewer 1.9.0 takes no argument "colour" (it takes model, scale, grid, title)',
        type: 'extra_forbidden',
      },
      {
        loc: ['body', 'arguments', 'model'],
        msg: "Input should be 'a.obj' or 'b.obj'",
        type: 'literal_error',
      },
      { loc: ['body', 'arguments', 'scale'], msg: 'Input should be a valid number', type: 'float_type' },
      { loc: ['body', 'arguments', 'grid'], msg: 'Field required: Grid', type: 'missing' },
      { loc: ['body', 'arguments', 'title'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
    const flag = await post('1.9.0', { grid: 'yes' });
    expect(flag.body.detail).toEqual([
      { loc: ['body', 'arguments', 'grid'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ]);
    // A version that declares none takes none.
    expect((await post('1.10.0', { usd_stage_uri: 'a.usd' })).body.detail).toEqual([
      {
        loc: ['body', 'arguments', 'usd_stage_uri'],
        msg: 'USD Viewer 1.10.0 takes no argument "usd_stage_uri" (it takes none)',
        type: 'extra_forbidden',
      },
    ]);
  });

  it('fills in the defaults, and passes arguments of an undeclared version as they are', async () => {
    const declared = await post('1.9.0', { grid: true, scale: 1.5 });
    expect(declared.status).toBeLessThan(300);
    expect(t.manager.get(declared.body.id!)?.arguments).toEqual({ grid: true, scale: 1.5, model: 'a.obj' });
    // The session says what it was started with.
    const read = await t.app.inject({ url: `/api/stream/${declared.body.id!}`, headers: bearer('alice') });
    expect(read.json()).toMatchObject({ arguments: { grid: true, scale: 1.5, model: 'a.obj' } });
    await t.manager.end(declared.body.id!);
    const free = await post('2.0.0-rc.1', { anything: { goes: 1 } });
    expect(free.status).toBeLessThan(300);
    expect(t.manager.get(free.body.id!)?.arguments).toEqual({ anything: { goes: 1 } });
    await t.manager.end(free.body.id!);
  });
});
