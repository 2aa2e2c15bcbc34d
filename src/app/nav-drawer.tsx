/** The navigation in a drawer, for narrow screens: it closes once a page is chosen. */
import Box from '@mui/material/Box';
import Drawer from '@mui/material/Drawer';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import { Link as RouterLink } from 'react-router-dom';
import type { NavItem } from './nav-links';

export interface NavDrawerProps {
  links: readonly NavItem[];
  /** The page's item (see `activeNavItem`), lit. */
  active: NavItem | undefined;
  open: boolean;
  onClose: () => void;
}

export default function NavDrawer({ links, active, open, onClose }: NavDrawerProps) {
  return (
    <Drawer
      id="nav-drawer"
      open={open}
      onClose={onClose}
      slotProps={{ paper: { 'aria-label': 'Navigation' } }}
    >
      <Box component="nav" aria-label="Main" sx={{ width: 240 }}>
        <List>
          {links.map((link) => (
            <ListItem key={link.to} disablePadding>
              <ListItemButton
                component={RouterLink}
                to={link.to}
                aria-current={link === active ? 'page' : undefined}
                onClick={onClose}
                sx={{ '&[aria-current="page"]': { color: 'primary.main', fontWeight: 700 } }}
              >
                {link.label}
              </ListItemButton>
            </ListItem>
          ))}
        </List>
      </Box>
    </Drawer>
  );
}
