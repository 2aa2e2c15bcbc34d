import FolderIcon from '@mui/icons-material/Folder';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';

/** The toolbar's button that shows and hides the Files panel. */
export function FilesButton(props: { open: boolean; onToggle: () => void }) {
  return (
    <Tooltip title="The session’s files (~/Files)">
      <IconButton aria-label="Files" aria-pressed={props.open} onClick={props.onToggle}>
        <FolderIcon />
      </IconButton>
    </Tooltip>
  );
}
