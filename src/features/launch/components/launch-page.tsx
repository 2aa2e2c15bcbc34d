import { useSearchParams } from 'react-router-dom';
import Typography from '@mui/material/Typography';
import { LaunchWizard } from './launch-wizard';
import { PendingSession } from './pending-session';

/** `/launch?app=&version=&profile=&usd_stage_uri=`; `&session=` once a session waits for capacity. */
export function LaunchPage() {
  const [params] = useSearchParams();
  const session = params.get('session');
  return (
    <>
      <Typography variant="h4" component="h1" gutterBottom>
        Launch a session
      </Typography>
      {session ? <PendingSession id={session} /> : <LaunchWizard />}
    </>
  );
}
