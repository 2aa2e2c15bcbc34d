import { Navigate, useSearchParams } from 'react-router-dom';
import Typography from '@mui/material/Typography';
import { LaunchWizard } from './launch-wizard';

/**
 * `/launch?app=&version=&profile=&usd_stage_uri=&step=review`; a session's page shows the launch once it is
 * made.
 */
export function LaunchPage() {
  const [params] = useSearchParams();
  // Links of earlier versions of the portal named a waiting session here (`&session=`): its page has it now.
  const session = params.get('session');
  if (session) return <Navigate to={`/sessions/${encodeURIComponent(session)}`} replace />;
  return (
    <>
      <Typography variant="h4" component="h1" gutterBottom>
        Launch a session
      </Typography>
      <LaunchWizard />
    </>
  );
}
