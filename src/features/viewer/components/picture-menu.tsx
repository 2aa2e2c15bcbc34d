/**
 * The toolbar's picture size menu: "Fit the window" or a cap (1080p ... 360p), the current one checked. The
 * choice is this browser's (picture-choice.ts) and applies at once: the stream is asked for the new size.
 */
import { useId, useState } from 'react';
import CheckIcon from '@mui/icons-material/Check';
import HighQualityIcon from '@mui/icons-material/HighQuality';
import IconButton from '@mui/material/IconButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Tooltip from '@mui/material/Tooltip';
import { PICTURE_CHOICES, type PictureChoice } from '../api/picture-choice';

export function PictureMenu(props: { choice: PictureChoice; onChoose: (choice: PictureChoice) => void }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  return (
    <>
      <Tooltip title={`Picture size: ${props.choice.label}`}>
        <IconButton
          aria-label="Picture size"
          aria-haspopup="menu"
          aria-controls={anchor ? menuId : undefined}
          aria-expanded={anchor ? true : undefined}
          onClick={(event) => setAnchor(event.currentTarget)}
        >
          <HighQualityIcon />
        </IconButton>
      </Tooltip>
      <Menu id={menuId} anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {PICTURE_CHOICES.map((choice) => {
          const current = choice.id === props.choice.id;
          return (
            <MenuItem
              key={choice.id}
              role="menuitemradio"
              aria-checked={current}
              selected={current}
              onClick={() => {
                props.onChoose(choice);
                setAnchor(null);
              }}
            >
              <ListItemIcon>{current && <CheckIcon fontSize="small" />}</ListItemIcon>
              <ListItemText>{choice.label}</ListItemText>
            </MenuItem>
          );
        })}
      </Menu>
    </>
  );
}
