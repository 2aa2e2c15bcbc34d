import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import type { VersionInfo } from '../../../lib/versions';

/** Props of VersionList. */
export interface VersionListProps {
  versions: VersionInfo[];
  selected: string | undefined;
  onSelect: (version: string) => void;
}

/** Versions newest first, with `latest` and pre-releases marked. */
export function VersionList({ versions, selected, onSelect }: VersionListProps) {
  return (
    <List aria-label="Versions" dense>
      {versions.map((v) => (
        <ListItem key={v.version} disablePadding>
          <ListItemButton
            selected={v.version === selected}
            aria-current={v.version === selected ? 'true' : undefined}
            onClick={() => onSelect(v.version)}
          >
            <ListItemText
              primary={
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <span>{v.version}</span>
                  {v.latest && <Chip color="primary" label="latest" />}
                  {v.prerelease && <Chip variant="outlined" label="pre-release" />}
                </Stack>
              }
            />
          </ListItemButton>
        </ListItem>
      ))}
    </List>
  );
}
