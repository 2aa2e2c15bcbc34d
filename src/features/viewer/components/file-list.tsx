/** The folder's entries, each with what can be done with it: Open, Download, Delete (after asking). */
import DeleteIcon from '@mui/icons-material/Delete';
import DownloadIcon from '@mui/icons-material/Download';
import FolderIcon from '@mui/icons-material/Folder';
import InsertDriveFileIcon from '@mui/icons-material/InsertDriveFile';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import DialogContentText from '@mui/material/DialogContentText';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FILES_FOLDER_NAME, formatBytes, type FileEntry } from '../../../../protocol/files';
import { formatWhen } from '../../../lib/format-when';
import { opensFile } from '../../../lib/versions';
import { deleteFile } from '../api/delete-file';
import { downloadFile } from '../api/download-file';
import { filesErrorText } from '../api/files-error';
import { filesQueries } from '../api/files-queries';

/** Asks before a file is deleted: the program loses it for good. */
function DeleteDialog(props: {
  name: string | undefined;
  deleting: boolean;
  error: unknown;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      open={props.name !== undefined}
      titleId="delete-file-title"
      title={`Delete ${props.name ?? ''}?`}
      cancelLabel="Keep it"
      confirmLabel="Delete"
      busy={props.deleting}
      onCancel={props.onCancel}
      onConfirm={props.onConfirm}
    >
      <DialogContentText>
        It is removed from the session’s ~/{FILES_FOLDER_NAME} for good: the program no longer sees it.
      </DialogContentText>
      {props.error ? (
        <DialogContentText color="error" role="alert" sx={{ mt: 1 }}>
          {filesErrorText(props.error)}
        </DialogContentText>
      ) : null}
    </ConfirmDialog>
  );
}

export function FileList(props: {
  sessionId: string;
  items: readonly FileEntry[];
  opens: string[] | undefined;
  canOpen: boolean;
  onOpen: (name: string) => boolean;
}) {
  const { sessionId } = props;
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const download = useMutation({
    mutationFn: (name: string) => downloadFile(sessionId, name),
    onMutate: () => setNotice(undefined),
    onError: (error) => setNotice(filesErrorText(error)),
  });
  const remove = useMutation({
    mutationFn: (name: string) => deleteFile(sessionId, name),
    onSuccess: async () => {
      setDeleting(undefined);
      await queryClient.invalidateQueries({ queryKey: filesQueries.list(sessionId).queryKey });
    },
  });
  if (props.items.length === 0)
    return (
      <Typography variant="body2" color="text.secondary">
        No files yet. Drop files on the picture, or use Upload.
      </Typography>
    );
  return (
    <>
      {notice && (
        <Alert severity="error" onClose={() => setNotice(undefined)}>
          {notice}
        </Alert>
      )}
      <Stack component="ul" aria-label="Files" sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {props.items.map((entry) => {
          const file = entry.kind === 'file';
          return (
            <Stack
              component="li"
              key={entry.name}
              direction="row"
              spacing={1}
              sx={{ alignItems: 'center', py: 0.5, borderBottom: 1, borderColor: 'divider' }}
            >
              {file ? <InsertDriveFileIcon color="action" /> : <FolderIcon color="action" />}
              <Stack sx={{ flex: 1, minWidth: 0 }}>
                <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                  {entry.name}
                </Typography>
                <Typography variant="caption" color="text.secondary">
                  {file ? `${formatBytes(entry.size)} · ` : 'Folder (in the zip) · '}
                  {formatWhen(entry.modified)}
                </Typography>
              </Stack>
              {file && opensFile(entry.name, props.opens) && (
                <Button
                  size="small"
                  aria-label={`Open ${entry.name}`}
                  disabled={!props.canOpen}
                  onClick={() =>
                    setNotice(
                      props.onOpen(entry.name) ? undefined : 'Not connected: the file was not opened.',
                    )
                  }
                >
                  Open
                </Button>
              )}
              {file && (
                <>
                  <Tooltip title="Download">
                    {/* A span: a tooltip needs an element that takes the pointer, which a disabled button does not. */}
                    <span>
                      <IconButton
                        aria-label={`Download ${entry.name}`}
                        onClick={() => download.mutate(entry.name)}
                        disabled={download.isPending && download.variables === entry.name}
                      >
                        <DownloadIcon />
                      </IconButton>
                    </span>
                  </Tooltip>
                  <Tooltip title="Delete">
                    <IconButton
                      aria-label={`Delete ${entry.name}`}
                      onClick={() => {
                        remove.reset();
                        setDeleting(entry.name);
                      }}
                    >
                      <DeleteIcon />
                    </IconButton>
                  </Tooltip>
                </>
              )}
            </Stack>
          );
        })}
      </Stack>
      <DeleteDialog
        name={deleting}
        deleting={remove.isPending}
        error={remove.error}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => deleting !== undefined && remove.mutate(deleting)}
      />
    </>
  );
}
