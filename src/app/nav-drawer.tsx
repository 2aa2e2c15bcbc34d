/** The navigation in a drawer, for narrow screens: it closes once a page is chosen. */
import Box from '@mui/material/Box';
import Drawer from '@mui/material/Drawer';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import { NavLink } from 'react-router-dom';

export interface NavDrawerProps {
  links: readonly { to: string; label: string }[];
  open: boolean;
  onClose: () => void;
}

export default function NavDrawer({ links, open, onClose }: NavDrawerProps) {
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
                component={NavLink}
                to={link.to}
                onClick={onClose}
                sx={{ '&.active': { color: 'primary.main', fontWeight: 700 } }}
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
