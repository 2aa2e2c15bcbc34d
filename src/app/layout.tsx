import { Suspense, useState } from 'react';
import { NavLink, Outlet } from 'react-router-dom';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Container from '@mui/material/Container';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import Toolbar from '@mui/material/Toolbar';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import DarkModeIcon from '@mui/icons-material/DarkMode';
import LightModeIcon from '@mui/icons-material/LightMode';
import MenuIcon from '@mui/icons-material/Menu';
import { Toaster } from '../components/toaster';
import { ActiveSessions } from './active-sessions';
import { ServiceBanner } from './service-banner';
import { useThemeMode } from './theme-mode';

const links = [
  { to: '/apps', label: 'Catalog' },
  { to: '/launch', label: 'Launch' },
  { to: '/sessions', label: 'Sessions' },
  { to: '/admin/profiles', label: 'Profiles' },
  { to: '/settings', label: 'Settings' },
];

/** The navigation as a row of buttons, where the header has room for it. */
function NavRow() {
  return (
    <Box
      component="nav"
      aria-label="Main"
      sx={{ display: { xs: 'none', md: 'flex' }, gap: 0.5, flexGrow: 1 }}
    >
      {links.map((link) => (
        <Button
          key={link.to}
          component={NavLink}
          to={link.to}
          color="inherit"
          sx={{ '&.active': { color: 'primary.main', fontWeight: 700 } }}
        >
          {link.label}
        </Button>
      ))}
    </Box>
  );
}

/**
 * On a narrow screen the links would wrap the header onto several rows: a menu button opens them in a
 * drawer instead, which closes once a page is chosen.
 */
function NavMenu() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <IconButton
        color="inherit"
        edge="start"
        aria-label="Open navigation"
        aria-controls={open ? 'nav-drawer' : undefined}
        aria-expanded={open}
        onClick={() => setOpen(true)}
        sx={{ display: { xs: 'inline-flex', md: 'none' } }}
      >
        <MenuIcon />
      </IconButton>
      <Drawer
        id="nav-drawer"
        open={open}
        onClose={() => setOpen(false)}
        slotProps={{ paper: { 'aria-label': 'Navigation' } }}
      >
        <Box component="nav" aria-label="Main" sx={{ width: 240 }}>
          <List>
            {links.map((link) => (
              <ListItem key={link.to} disablePadding>
                <ListItemButton
                  component={NavLink}
                  to={link.to}
                  onClick={() => setOpen(false)}
                  sx={{ '&.active': { color: 'primary.main', fontWeight: 700 } }}
                >
                  {link.label}
                </ListItemButton>
              </ListItem>
            ))}
          </List>
        </Box>
      </Drawer>
    </>
  );
}

/** The page frame: header with navigation and theme toggle, then the page. */
export function Layout() {
  const { mode, toggle } = useThemeMode();
  const label = mode === 'light' ? 'Switch to dark theme' : 'Switch to light theme';
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      <Button
        href="#main"
        variant="contained"
        sx={{ position: 'absolute', left: 8, top: -48, zIndex: 2000, '&:focus': { top: 8 } }}
      >
        Skip to content
      </Button>
      <AppBar
        position="static"
        color="default"
        elevation={0}
        sx={{ borderBottom: 1, borderColor: 'divider' }}
      >
        <Toolbar sx={{ gap: 1 }}>
          <NavMenu />
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mr: 2, flexGrow: { xs: 1, md: 0 } }}>
            <Box
              component="img"
              src={`${import.meta.env.BASE_URL}icon.svg`}
              alt=""
              aria-hidden="true"
              width={28}
              height={28}
            />
            <Typography variant="h6" component="p" sx={{ fontWeight: 700 }}>
              Streamgate
            </Typography>
          </Box>
          <NavRow />
          <ActiveSessions />
          <Tooltip title={label}>
            <IconButton onClick={toggle} aria-label={label} color="inherit">
              {mode === 'light' ? <DarkModeIcon /> : <LightModeIcon />}
            </IconButton>
          </Tooltip>
        </Toolbar>
      </AppBar>
      <ServiceBanner />
      <Container
        component="main"
        id="main"
        tabIndex={-1}
        maxWidth="lg"
        sx={{ py: 3, flexGrow: 1, outline: 'none' }}
      >
        <Suspense fallback={<CircularProgress aria-label="Loading page" />}>
          <Outlet />
        </Suspense>
      </Container>
      <Toaster />
    </Box>
  );
}
