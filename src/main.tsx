import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { createQueryClient } from './app/query-client';
import { loadConfig } from './lib/config';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The configuration decides where the API is, so it is read before the first request.
void loadConfig().then(() => {
  createRoot(root).render(
    <StrictMode>
      <App queryClient={createQueryClient()} />
    </StrictMode>,
  );
});
