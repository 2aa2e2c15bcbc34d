import { Suspense } from 'react';
import { NavLink, Outlet } from 'react-router-dom';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Container from '@mui/material/Container';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import DarkModeIcon from '@mui/icons-material/DarkMode';
import LightModeIcon from '@mui/icons-material/LightMode';
import { Toaster } from '../components/toaster';
import { ServiceBanner } from './service-banner';
import { useThemeMode } from './theme-mode';

const links = [
  { to: '/apps', label: 'Catalog' },
  { to: '/launch', label: 'Launch' },
  { to: '/sessions', label: 'Sessions' },
  { to: '/admin/profiles', label: 'Profiles' },
  { to: '/settings', label: 'Settings' },
];

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
        <Toolbar sx={{ flexWrap: 'wrap', gap: 1, py: { xs: 1, sm: 0 } }}>
          <Typography variant="h6" component="p" sx={{ mr: 2, fontWeight: 700 }}>
            Streamgate
          </Typography>
          <Box
            component="nav"
            aria-label="Main"
            sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, flexGrow: 1 }}
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
