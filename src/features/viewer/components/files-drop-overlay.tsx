import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { FILES_FOLDER_NAME } from '../../../../protocol/files';

/** Over the stage while files are held over it: where they will go. It takes no pointer events. */
export function FilesDropOverlay({ dragging }: { dragging: boolean }) {
  if (!dragging) return null;
  return (
    <Box
      role="status"
      sx={{
        position: 'absolute',
        inset: 0,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        pointerEvents: 'none',
        bgcolor: 'rgba(0, 0, 0, 0.6)',
        border: 3,
        borderStyle: 'dashed',
        borderColor: 'primary.main',
        borderRadius: 1,
      }}
    >
      <Typography variant="h6" sx={{ color: 'common.white' }}>
        Drop to put into ~/{FILES_FOLDER_NAME}
      </Typography>
    </Box>
  );
}
