/**
 * Everything the viewer's Files panel, its toolbar button and the stage's drop need of one session's folder:
 * the listing (asked when the panel opens and when the application says the folder changed, never polled),
 * the uploads, Open for the extensions the program takes, and the file chosen at launch.
 */
import { useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import {
  FILES_CHANGED_EVENT,
  OPEN_FILE_EVENT,
  OPENED_FILE_RESULT_EVENT,
  type FilesListing,
  type OpenFilePayload,
} from '../../../../protocol/files';
import type { Session } from '../../../lib/api-client';
import { takeLaunchFile } from '../../../lib/launch-file';
import { showToast } from '../../../lib/toast';
import type { MessageRecord } from '../../../player';
import { FileUploads, type UploadRow } from '../api/file-uploads';
import { filesQueries } from '../api/files-queries';
import { openedFileNotice } from '../api/open-file';
import { uploadFile } from '../api/upload-file';
import { uploadProblem } from '../api/upload-problem';
import { useFileDrop, type DropTarget } from './use-file-drop';
import { useIncomingMessages } from './use-incoming-messages';
import { useVersionOpens } from './use-version-opens';

/** The session's folder as the viewer shows it. */
export interface SessionFiles {
  sessionId: string;
  /** The owner's viewer of a running session: otherwise there is no panel, button or drop. */
  enabled: boolean;
  open: boolean;
  setOpen: (open: boolean) => void;
  listing: UseQueryResult<FilesListing>;
  uploads: readonly UploadRow[];
  cancel: (id: number) => void;
  dismiss: (id: number) => void;
  /** Uploads `files`, each checked first; the panel opens to show them. */
  put: (files: File[]) => void;
  /** The extensions the program opens (lower case, no dot); undefined: none known. */
  opens: string[] | undefined;
  /** Whether `openFile` can be sent now (the messages channel is open). */
  canOpen: boolean;
  /** Asks the program to open `name`; false when the channel is not open. */
  openFile: (name: string) => boolean;
  /** Files held over the stage. */
  dragging: boolean;
  /** The stage's drop handlers. */
  dropTarget: DropTarget;
}

export function useSessionFiles(props: {
  sessionId: string;
  session: Session | undefined;
  enabled: boolean;
  /** The messages channel is open (the stream plays). */
  canSend: boolean;
  messages: readonly MessageRecord[];
  send: (eventType: string, payload: Record<string, unknown>) => boolean;
}): SessionFiles {
  const { sessionId, enabled, canSend, send } = props;
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const listing = useQuery({ ...filesQueries.list(sessionId), enabled: enabled && open });
  const opens = useVersionOpens(props.session, enabled);
  const uploads = useMemo(
    () => new FileUploads((file, options) => uploadFile(sessionId, file.name, file, options)),
    [sessionId],
  );
  // Leaving the page, or the session ending, stops what is still being sent: the service keeps nothing of it.
  useEffect(() => {
    if (!enabled) return undefined;
    return () => uploads.stopAll();
  }, [uploads, enabled]);
  const rows = useSyncExternalStore(uploads.subscribe, uploads.rows);

  const refresh = useCallback(
    () => queryClient.invalidateQueries({ queryKey: filesQueries.list(sessionId).queryKey }),
    [queryClient, sessionId],
  );
  const put = useCallback(
    async (files: File[], then?: (name: string) => void) => {
      setOpen(true);
      // The room as the service counts it now; without an answer, the service alone checks it.
      const known = await queryClient.fetchQuery(filesQueries.list(sessionId)).catch(() => undefined);
      for (const file of files)
        uploads.add(
          file,
          uploadProblem(file, { listing: known, queued: uploads.queuedBytes() }),
          async () => {
            await refresh();
            then?.(file.name);
          },
        );
    },
    [queryClient, sessionId, uploads, refresh],
  );

  useIncomingMessages(props.messages, (message) => {
    if (!enabled) return;
    if (message.event_type === FILES_CHANGED_EVENT) void refresh();
    if (message.event_type === OPENED_FILE_RESULT_EVENT) {
      const notice = openedFileNotice(message.payload);
      if (notice) showToast(notice.message, notice.severity);
    }
  });

  // The file chosen at launch goes in once the stream plays, and is opened once it is there.
  const [toOpen, setToOpen] = useState<string>();
  useEffect(() => {
    if (!enabled || !canSend) return;
    const file = takeLaunchFile(sessionId);
    if (file) void put([file], setToOpen);
  }, [enabled, canSend, sessionId, put]);
  useEffect(() => {
    if (toOpen === undefined || !canSend) return;
    send(OPEN_FILE_EVENT, { name: toOpen } satisfies OpenFilePayload);
    setToOpen(undefined);
  }, [toOpen, canSend, send]);

  const drop = useFileDrop(enabled, (files) => void put(files));
  return {
    sessionId,
    enabled,
    open: enabled && open,
    setOpen,
    listing,
    uploads: rows,
    cancel: (id) => uploads.cancel(id),
    dismiss: (id) => uploads.dismiss(id),
    put: (files) => void put(files),
    opens,
    canOpen: canSend,
    openFile: (name) => send(OPEN_FILE_EVENT, { name } satisfies OpenFilePayload),
    dragging: drop.dragging,
    dropTarget: drop.target,
  };
}
