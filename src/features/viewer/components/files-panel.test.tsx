/**
 * The owner's Files panel over a playing stream: the listing and its use, Download and Delete, uploads with
 * their progress and their refusals, the application's `filesChanged` and `openedFileResult`, Open, the drop
 * on the stage, and the file chosen at launch.
 */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FileEntry, FilesListing } from '../../../../protocol/files';
import { DEFAULT_CONFIG, setFileConfig } from '../../../lib/config';
import { keepLaunchFile } from '../../../lib/launch-file';
import { narrowScreen } from '../../../test/narrow-screen';
import { saveBlob } from '../../../lib/save-blob';
import { ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { FakeXhr } from '../testing/fake-xhr';
import { playing, withFakeStream } from '../testing/fake-stream';

vi.mock('../../../lib/save-blob', () => ({ saveBlob: vi.fn() }));

withFakeStream('control');

const MB = 1024 * 1024;
const entries: FileEntry[] = [
  { name: 'model.obj', size: 1536, modified: '2026-03-12T14:05:00Z', kind: 'file' },
  { name: 'notes.txt', size: 3 * MB, modified: '2026-03-12T14:06:00Z', kind: 'file' },
  { name: 'renders', size: 0, modified: '2026-03-12T14:07:00Z', kind: 'folder' },
];

/** The folder the service serves, which a test may change; counts the listings asked for. */
function serveFolder(items: FileEntry[] = entries, limit = 512 * MB) {
  const folder = {
    listing: { limit_bytes: limit, used_bytes: items.reduce((s, e) => s + e.size, 0), items } as FilesListing,
    listed: 0,
    deleted: [] as string[],
  };
  server.use(
    http.get(api('/stream/:id/files'), ({ request }) => {
      if (new URL(request.url).searchParams.get('format') === 'zip')
        return new HttpResponse('PK-zip', { headers: { 'Content-Type': 'application/zip' } });
      folder.listed++;
      return HttpResponse.json(folder.listing);
    }),
    http.get(
      api('/stream/:id/files/:name'),
      ({ params }) =>
        new HttpResponse(`bytes of ${String(params.name)}`, {
          headers: { 'Content-Type': 'application/octet-stream' },
        }),
    ),
    http.delete(api('/stream/:id/files/:name'), ({ params }) => {
      folder.deleted.push(String(params.name));
      folder.listing = {
        ...folder.listing,
        items: folder.listing.items.filter((e) => e.name !== params.name),
      };
      return new HttpResponse(null, { status: 204 });
    }),
  );
  return folder;
}

/** The page playing with its messages channel open; `receive` is an event of the application. */
async function opened(path = `/sessions/${sessionId}`) {
  renderRoute(path);
  const { stream, peer } = await playing();
  const channel = peer.channel('messages');
  channel.open();
  const receive = (event_type: string, payload: Record<string, unknown>) =>
    act(() => channel.receive(JSON.stringify({ event_type, payload })));
  const sent = () => channel.sent.map((s) => JSON.parse(s) as { event_type: string; payload: unknown });
  return { stream, channel, receive, sent };
}

/** Opens the panel from the toolbar and waits for its listing. */
async function openPanel() {
  await userEvent.click(screen.getByRole('button', { name: 'Files' }));
  const panel = await screen.findByRole('region', { name: 'Files' });
  await within(panel).findByRole('list', { name: 'Files' });
  return panel;
}

/** A file of `size` bytes (its content does not matter to the portal). */
function fileOf(name: string, size = 10): File {
  return new File([new Uint8Array(size)], name, { type: 'application/octet-stream' });
}

beforeEach(() => {
  FakeXhr.reset();
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  vi.mocked(saveBlob).mockClear();
});

describe('The viewer’s Files panel', { timeout: 30_000 }, () => {
  it('lists each entry with its size and time, and what the folder takes of its limit', async () => {
    const folder = serveFolder();
    await opened();
    expect(folder.listed).toBe(0);
    const panel = await openPanel();
    expect(within(panel).getByText(/sees this folder as ~\/Files/)).toBeInTheDocument();
    expect(within(panel).getByText('3 MB of 512 MB used')).toBeInTheDocument();
    const use = within(panel).getByRole('progressbar', { name: 'Folder use' });
    // 3 MB and 1.5 KB of 512 MB.
    expect(Number(use.getAttribute('aria-valuenow'))).toBeCloseTo(0.586, 3);
    const items = within(within(panel).getByRole('list', { name: 'Files' })).getAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringMatching(/^model\.obj1\.5 KB · /),
      expect.stringMatching(/^notes\.txt3 MB · /),
      expect.stringMatching(/^rendersFolder \(in the zip\) · /),
    ]);
    // A folder goes only within the zip: no Download or Delete of its own.
    expect(within(panel).queryByRole('button', { name: 'Download renders' })).not.toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Delete renders' })).not.toBeInTheDocument();
    // Closed and opened again, it asks again.
    await userEvent.click(within(panel).getByRole('button', { name: 'Close files' }));
    expect(screen.queryByRole('region', { name: 'Files' })).not.toBeInTheDocument();
    await openPanel();
    await waitFor(() => expect(folder.listed).toBe(2));
  });

  it('comes up from the bottom on a phone, over the page', async () => {
    narrowScreen();
    serveFolder();
    await opened();
    await userEvent.click(screen.getByRole('button', { name: 'Files' }));
    const sheet = await screen.findByRole('dialog', { name: 'Files' });
    expect(sheet.closest('.MuiDrawer-root')).toHaveClass('MuiDrawer-anchorBottom');
    expect(await within(sheet).findByText('notes.txt')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Files' })).not.toBeInTheDocument();
    await userEvent.click(within(sheet).getByRole('button', { name: 'Close files' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Files' })).not.toBeInTheDocument());
  });

  it('is not on a watcher’s page', async () => {
    serveFolder();
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    await playing();
    expect(screen.getByRole('button', { name: 'Disconnect' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Files' })).not.toBeInTheDocument();
  });

  it('downloads a file and the whole folder into blobs saved under their names', async () => {
    serveFolder();
    await opened();
    const panel = await openPanel();
    await userEvent.click(within(panel).getByRole('button', { name: 'Download notes.txt' }));
    await waitFor(() => expect(saveBlob).toHaveBeenCalledTimes(1));
    const [blob, name] = vi.mocked(saveBlob).mock.calls[0]!;
    expect(name).toBe('notes.txt');
    expect(await blob.text()).toBe('bytes of notes.txt');
    await userEvent.click(within(panel).getByRole('button', { name: 'Download all (zip)' }));
    await waitFor(() => expect(saveBlob).toHaveBeenCalledTimes(2));
    const [zip, zipName] = vi.mocked(saveBlob).mock.calls[1]!;
    expect(zipName).toBe(`files-${sessionId}.zip`);
    expect(await zip.text()).toBe('PK-zip');
  });

  it('deletes a file only once the person confirms, then lists the folder again', async () => {
    const folder = serveFolder();
    await opened();
    const panel = await openPanel();
    await userEvent.click(within(panel).getByRole('button', { name: 'Delete model.obj' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete model.obj?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(folder.deleted).toEqual([]);
    await userEvent.click(within(panel).getByRole('button', { name: 'Delete model.obj' }));
    await userEvent.click(
      within(await screen.findByRole('dialog', { name: 'Delete model.obj?' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    await waitFor(() => expect(within(panel).queryByText('model.obj')).not.toBeInTheDocument());
    expect(folder.deleted).toEqual(['model.obj']);
  });

  it('uploads with the credential and progress, and lists the file once it arrived', async () => {
    setFileConfig({ ...DEFAULT_CONFIG, token: 'secret-token' });
    const folder = serveFolder();
    await opened();
    const panel = await openPanel();
    await userEvent.upload(within(panel).getByLabelText('Upload'), [fileOf('a b.txt', 200)]);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    const xhr = FakeXhr.sent[0]!;
    expect(xhr.method).toBe('PUT');
    expect(xhr.url).toBe(`http://localhost:3000/api/stream/${sessionId}/files/a%20b.txt`);
    expect(xhr.headers).toEqual({
      Authorization: 'Bearer secret-token',
      'Content-Type': 'application/octet-stream',
    });
    expect(xhr.url).not.toContain('secret-token');
    const row = within(panel).getByRole('progressbar', { name: 'Uploading a b.txt' });
    act(() => xhr.progress(100, 200));
    expect(row).toHaveAttribute('aria-valuenow', '50');
    expect(within(panel).getByText('50% of 200 B')).toBeInTheDocument();
    // Nothing of it shows in the listing before the service says it is there.
    const list = within(panel).getByRole('list', { name: 'Files' });
    expect(within(list).queryByText('a b.txt')).not.toBeInTheDocument();
    act(() => xhr.progress(200, 200));
    expect(row).toHaveAttribute('aria-valuenow', '100');
    const before = folder.listed;
    const added: FileEntry = { name: 'a b.txt', size: 200, modified: '2026-03-12T15:00:00Z', kind: 'file' };
    folder.listing = { ...folder.listing, items: [added, ...folder.listing.items] };
    act(() => xhr.respond(201, added));
    await waitFor(() =>
      expect(within(panel).queryByRole('progressbar', { name: 'Uploading a b.txt' })).not.toBeInTheDocument(),
    );
    expect(folder.listed).toBeGreaterThan(before);
    expect(within(list).getByText('a b.txt')).toBeInTheDocument();
  });

  it('cancels an upload: its row goes and the listing never shows it', async () => {
    serveFolder();
    await opened();
    const panel = await openPanel();
    await userEvent.upload(within(panel).getByLabelText('Upload'), [fileOf('big.bin', 1000)]);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    act(() => FakeXhr.sent[0]!.progress(300, 1000));
    await userEvent.click(within(panel).getByRole('button', { name: 'Cancel upload of big.bin' }));
    expect(FakeXhr.sent[0]!.aborted).toBe(true);
    expect(within(panel).queryByText('big.bin')).not.toBeInTheDocument();
  });

  it('sends nothing of a name or a size it can tell will be refused, and says why', async () => {
    serveFolder(entries, 4 * MB);
    await opened();
    const panel = await openPanel();
    await userEvent.upload(within(panel).getByLabelText('Upload'), [
      fileOf('.streamgate-partial-x'),
      fileOf('huge.bin', 5 * MB),
      fileOf('large.bin', MB),
    ]);
    const uploads = await within(panel).findByRole('list', { name: 'Uploads' });
    expect(
      await within(uploads).findByText('A file name cannot begin with “.streamgate-partial-”.'),
    ).toBeInTheDocument();
    expect(
      within(uploads).getByText(
        'This file (5 MB) is larger than the session’s whole folder (4 MB): it cannot go in.',
      ),
    ).toBeInTheDocument();
    // 3 MB of 4 are used: 1 MB and 1.5 KB do not fit in what is left.
    expect(
      within(uploads).getByText(/^This file \(1 MB\) does not fit: 1023 KB of the folder’s 4 MB/),
    ).toBeInTheDocument();
    expect(FakeXhr.sent).toHaveLength(0);
    // Each stays until dismissed.
    await userEvent.click(within(uploads).getByRole('button', { name: 'Dismiss huge.bin' }));
    expect(within(uploads).queryByText(/huge\.bin/)).not.toBeInTheDocument();
    expect(within(uploads).getAllByRole('listitem')).toHaveLength(2);
  });

  it('shows the service’s sentence of a 507 until dismissed, and its own words where it has none', async () => {
    serveFolder();
    await opened();
    const panel = await openPanel();
    await userEvent.upload(within(panel).getByLabelText('Upload'), [fileOf('one.bin'), fileOf('two.bin')]);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    act(() => FakeXhr.sent[0]!.respond(507, { detail: 'The file needs 10 B; 4 B are left.' }));
    // The next one goes once the first is done.
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(2));
    act(() => FakeXhr.sent[1]!.respond(413, undefined));
    const uploads = within(panel).getByRole('list', { name: 'Uploads' });
    expect(await within(uploads).findByText('The file needs 10 B; 4 B are left.')).toBeInTheDocument();
    expect(
      await within(uploads).findByText(
        'The file is larger than the session’s whole folder: it cannot go in.',
      ),
    ).toBeInTheDocument();
    await userEvent.click(within(uploads).getByRole('button', { name: 'Dismiss one.bin' }));
    expect(within(uploads).queryByText('The file needs 10 B; 4 B are left.')).not.toBeInTheDocument();
    expect(within(panel).queryByText('one.bin')).not.toBeInTheDocument();
  });

  it('says so in its own words when an upload gets no answer', async () => {
    serveFolder();
    await opened();
    const panel = await openPanel();
    await userEvent.upload(within(panel).getByLabelText('Upload'), [fileOf('one.bin')]);
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    act(() => FakeXhr.sent[0]!.fail());
    expect(await within(panel).findByText(/could not be reached: check the network/)).toBeInTheDocument();
  });

  it('lists the folder again when the application says it changed, and never polls', async () => {
    const folder = serveFolder();
    const { receive } = await opened();
    const panel = await openPanel();
    await waitFor(() => expect(folder.listed).toBe(1));
    folder.listing = {
      ...folder.listing,
      items: [
        ...folder.listing.items,
        { name: 'saved.stl', size: 10, modified: '2026-03-12T15:00:00Z', kind: 'file' },
      ],
    };
    receive('filesChanged', { used_bytes: folder.listing.used_bytes + 10 });
    expect(await within(panel).findByText('saved.stl')).toBeInTheDocument();
    expect(folder.listed).toBe(2);
  });

  it('offers Open only for the extensions the version opens, sends openFile, and shows the answer', async () => {
    server.use(
      http.get(api('/stream/:id'), () =>
        HttpResponse.json({ ...ready, app: 'model-viewer', version: '1.0.0' }),
      ),
      http.get(api('/cfg/apps/:id'), () =>
        HttpResponse.json({ id: 'model-viewer', name: 'Model Viewer', description: 'F3D.', tags: [] }),
      ),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ count: 1, items: [{ version: '1.0.0', arguments: [], opens: ['.OBJ', 'stl'] }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
        HttpResponse.json({ count: 0, items: [] }),
      ),
    );
    serveFolder();
    const { receive, sent } = await opened();
    const panel = await openPanel();
    const open = await within(panel).findByRole('button', { name: 'Open model.obj' });
    expect(within(panel).queryByRole('button', { name: 'Open notes.txt' })).not.toBeInTheDocument();
    await userEvent.click(open);
    expect(sent()).toContainEqual({ event_type: 'openFile', payload: { name: 'model.obj' } });
    receive('openedFileResult', { result: 'error', name: 'model.obj', message: 'It is not a mesh.' });
    expect(
      await screen.findByText('The program could not open model.obj. It is not a mesh.'),
    ).toBeInTheDocument();
  });

  it('uploads files dropped on the stage, saying where they go while they are held over it', async () => {
    serveFolder();
    const { stream } = await opened();
    const stage = stream.parentElement!;
    const dropped = fileOf('dropped.obj', 40);
    const dataTransfer = { types: ['Files'], files: [dropped], dropEffect: 'none' };
    fireEvent.dragEnter(stage, { dataTransfer });
    expect(screen.getByText('Drop to put into ~/Files')).toBeInTheDocument();
    fireEvent.drop(stage, { dataTransfer });
    expect(screen.queryByText('Drop to put into ~/Files')).not.toBeInTheDocument();
    // The panel opens by itself to show the upload.
    const panel = await screen.findByRole('region', { name: 'Files' });
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    expect(FakeXhr.sent[0]!.body).toBe(dropped);
    expect(within(panel).getByRole('progressbar', { name: 'Uploading dropped.obj' })).toBeInTheDocument();
  });

  it('puts the file chosen at launch into the folder once the stream plays, then opens it', async () => {
    serveFolder();
    const chosen = fileOf('part.stl', 64);
    keepLaunchFile(sessionId, chosen);
    const { sent } = await opened();
    await waitFor(() => expect(FakeXhr.sent).toHaveLength(1));
    expect(FakeXhr.sent[0]!.url).toMatch(/\/files\/part\.stl$/);
    expect(sent().filter((m) => m.event_type === 'openFile')).toEqual([]);
    act(() =>
      FakeXhr.sent[0]!.respond(201, {
        name: 'part.stl',
        size: 64,
        modified: '2026-03-12T15:00:00Z',
        kind: 'file',
      }),
    );
    await waitFor(() =>
      expect(sent()).toContainEqual({ event_type: 'openFile', payload: { name: 'part.stl' } }),
    );
  });
});
