/**
 * The session's files (the program's `~/Files`): what the folder takes of its limit, its entries, uploads
 * under way, Upload and Download all. Below the stage on a wide screen; a bottom drawer on a phone, where
 * below the stage is out of sight.
 */
import CloseIcon from '@mui/icons-material/Close';
import UploadIcon from '@mui/icons-material/Upload';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useMutation } from '@tanstack/react-query';
import { FILES_FOLDER_NAME, formatBytes, type FilesListing } from '../../../../protocol/files';
import { useNarrow } from '../../../components/use-narrow';
import { downloadAllFiles } from '../api/download-file';
import { filesErrorText } from '../api/files-error';
import type { SessionFiles } from '../hooks/use-session-files';
import { FileList } from './file-list';
import { UploadRows } from './upload-rows';

/** How much of its limit the folder takes, in words and as a bar. */
function FolderUse({ listing }: { listing: FilesListing }) {
  const share = listing.limit_bytes > 0 ? Math.min(100, (listing.used_bytes / listing.limit_bytes) * 100) : 0;
  return (
    <Stack spacing={0.5}>
      <Typography variant="body2">
        {formatBytes(listing.used_bytes)} of {formatBytes(listing.limit_bytes)} used
      </Typography>
      <LinearProgress
        variant="determinate"
        value={share}
        aria-label="Folder use"
        color={share >= 90 ? 'warning' : 'primary'}
      />
    </Stack>
  );
}

/** The panel's content, the same in both places. */
function FilesContent({ files }: { files: SessionFiles }) {
  const { listing } = files;
  const zip = useMutation({ mutationFn: () => downloadAllFiles(files.sessionId) });
  const empty = listing.data?.items.length === 0;
  return (
    <Stack spacing={2}>
      <Typography variant="body2" color="text.secondary">
        The program sees this folder as ~/{FILES_FOLDER_NAME}. Drop files on the picture to put them there.
      </Typography>
      {listing.data && <FolderUse listing={listing.data} />}
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Button component="label" variant="contained" startIcon={<UploadIcon />}>
          Upload
          <input
            hidden
            type="file"
            multiple
            onChange={(event) => {
              const chosen = Array.from(event.target.files ?? []);
              // The same file chosen again later is a change too.
              event.target.value = '';
              if (chosen.length > 0) files.put(chosen);
            }}
          />
        </Button>
        <Button
          variant="outlined"
          onClick={() => zip.mutate()}
          disabled={zip.isPending || empty || !listing.data}
        >
          Download all (zip)
        </Button>
      </Stack>
      {zip.isError && (
        <Alert severity="error" onClose={() => zip.reset()}>
          {filesErrorText(zip.error)}
        </Alert>
      )}
      <UploadRows rows={files.uploads} onCancel={files.cancel} onDismiss={files.dismiss} />
      {listing.isError && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void listing.refetch()}>
              Retry
            </Button>
          }
        >
          {filesErrorText(listing.error)}
        </Alert>
      )}
      {listing.isPending && listing.fetchStatus === 'fetching' && (
        <CircularProgress size={24} aria-label="Loading the files" />
      )}
      {listing.data && (
        <FileList
          sessionId={files.sessionId}
          items={listing.data.items}
          opens={files.opens}
          canOpen={files.canOpen}
          onOpen={files.openFile}
        />
      )}
    </Stack>
  );
}

/** The heading with a Close. */
function FilesHeading({ onClose }: { onClose: () => void }) {
  return (
    <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
      <Typography id="viewer-files-title" variant="h6" component="h2">
        Files
      </Typography>
      <IconButton aria-label="Close files" onClick={onClose}>
        <CloseIcon />
      </IconButton>
    </Stack>
  );
}

export function FilesPanel({ files }: { files: SessionFiles }) {
  const narrow = useNarrow();
  if (!files.enabled) return null;
  const close = () => files.setOpen(false);
  if (narrow)
    return (
      <Drawer
        anchor="bottom"
        open={files.open}
        onClose={close}
        // A modal sheet over the page: a dialog, named by its heading.
        slotProps={{
          paper: {
            role: 'dialog',
            'aria-modal': true,
            'aria-labelledby': 'viewer-files-title',
            sx: { maxHeight: '80dvh' },
          },
        }}
      >
        <Box sx={{ p: 2 }}>
          <FilesHeading onClose={close} />
          <FilesContent files={files} />
        </Box>
      </Drawer>
    );
  if (!files.open) return null;
  return (
    <Paper component="section" aria-labelledby="viewer-files-title" sx={{ p: 2 }}>
      <FilesHeading onClose={close} />
      <FilesContent files={files} />
    </Paper>
  );
}
