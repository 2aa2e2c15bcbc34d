import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { createQueryClient } from './app/query-client';
import { answerSilentRenewal, startSignIn } from './lib/auth/sign-in';
import { loadConfig } from './lib/config';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The configuration decides where the API is, and whether people sign in, so it is read before the first
// request; the person this tab signed in is read with it, so that the first request already carries their token.
void loadConfig().then(async ({ auth }) => {
  // The hidden frame of a sign-in renewal only hands the provider's answer to the portal around it.
  if (await answerSilentRenewal(auth)) return;
  await startSignIn(auth);
  createRoot(root).render(
    <StrictMode>
      <App queryClient={createQueryClient()} />
    </StrictMode>,
  );
});
