import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import TextField from '@mui/material/TextField';
import { ErrorAlert } from '../../../components/error-alert';
import { ReasonedButton } from '../../../components/reasoned-button';
import { isApiError } from '../../../lib/api-client';
import { describeError } from '../../../lib/error-text';
import { sessionQueries } from '../../../lib/queries/session-queries';
import { versionParam } from '../../../lib/versions';
import { fieldOfError, launchSession, LaunchError, type LaunchField } from '../api/launch-session';
import { launchQueries } from '../api/launch-queries';
import { AppField, ProfileField, VersionField } from './launch-fields';
import { LaunchReview } from './launch-review';

const steps = ['Application', 'Version', 'Profile', 'Options', 'Review'];

const FIELD_NAMES: Record<LaunchField, string> = {
  app: 'application',
  version: 'version',
  profile: 'profile',
  usd_stage_uri: 'USD stage URI',
};

/** Why the choice cannot be reviewed yet, in words; undefined when it can. */
function reviewReason(state: {
  app: string;
  profile: string;
  checking: boolean;
  problem: LaunchField | undefined;
}): string | undefined {
  if (!state.app) return 'Choose an application to review the launch.';
  if (!state.profile) return 'Choose a profile to review the launch.';
  if (state.problem) return `Fix the ${FIELD_NAMES[state.problem]} above to review the launch.`;
  if (state.checking) return 'Checking that this profile applies…';
  return undefined;
}

function fieldMessage(error: unknown, field: LaunchField, value: string): string | undefined {
  const launchError = error instanceof LaunchError ? error : undefined;
  const apiError = launchError?.apiError ?? (isApiError(error) ? error : undefined);
  if (!apiError) return undefined;
  const owner = launchError ? launchError.field : fieldOfError(apiError, field);
  if (owner !== field) return undefined;
  if (apiError.status === 404) {
    const what = { app: 'Application', version: 'Version', profile: 'Profile', usd_stage_uri: 'Stage' }[
      field
    ];
    return `${what} ${value} no longer exists${field === 'profile' ? ' or does not apply to this version' : ''}.`;
  }
  return apiError.issues.map((i) => i.msg).join('; ') || describeError(apiError);
}

/** The wizard: application, version (default latest), profile, options, review, then POST /stream. */
export function LaunchWizard() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [reviewing, setReviewing] = useState(false);
  const app = params.get('app') ?? '';
  const version = versionParam(params) || 'latest';
  const profile = params.get('profile') ?? '';
  const stage = params.get('usd_stage_uri') ?? '';

  const apps = useQuery(launchQueries.apps());
  const versions = useQuery({ ...launchQueries.versions(app), enabled: app !== '' });
  const resolved = version === 'latest' ? versions.data?.find((v) => v.latest)?.version : version;
  const profiles = useQuery({
    ...launchQueries.profiles(app, resolved ?? ''),
    enabled: Boolean(app && resolved),
  });
  const launch = useMutation({
    mutationFn: launchSession,
    // Ready (200) or waiting (202), the session's page takes it from here, starting from this answer.
    onSuccess: (session) => {
      queryClient.setQueryData(sessionQueries.detail(session.id).queryKey, { session, ended: undefined });
      navigate(`/sessions/${session.id}`);
    },
    onError: () => setReviewing(false),
  });

  const set = (changes: Record<string, string>) => {
    launch.reset();
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };
  const appName = apps.data?.items.find((a) => a.id === app)?.name;
  // A deep link may name a profile that does not apply to its version: say so here, not after Launch.
  const unlisted =
    profile && profiles.isSuccess && !profiles.data.some((p) => p.id === profile)
      ? `Profile ${profile} does not apply to ${appName ?? app} ${resolved ?? version}; choose one that does.`
      : undefined;
  const errorFor = (field: LaunchField, value: string) =>
    fieldMessage(launch.error, field, value) ??
    (field === 'app' ? fieldMessage(versions.error, 'app', value) : undefined) ??
    (field === 'version' ? fieldMessage(profiles.error, 'version', value) : undefined) ??
    (field === 'profile' ? unlisted : undefined);
  const formError =
    launch.error instanceof LaunchError && launch.error.field === undefined
      ? launch.error.apiError
      : undefined;
  const listError = [apps.error, versions.error].find((e) => isApiError(e) && e.status === 403);
  const reviewBlocked = reviewReason({
    app,
    profile,
    checking: Boolean(app && profile) && (versions.isPending || (Boolean(resolved) && profiles.isPending)),
    problem: (['app', 'version', 'profile', 'usd_stage_uri'] as const).find((f) =>
      errorFor(f, { app, version, profile, usd_stage_uri: stage }[f]),
    ),
  });
  const active = reviewing ? 4 : !app ? 0 : !profile ? 2 : 3;

  return (
    <Stack spacing={3} sx={{ maxWidth: 720 }}>
      <Stepper activeStep={active} alternativeLabel aria-label="Launch steps" sx={{ overflowX: 'auto' }}>
        {steps.map((label) => (
          <Step key={label}>
            <StepLabel>{label}</StepLabel>
          </Step>
        ))}
      </Stepper>
      {listError !== undefined && <ErrorAlert error={listError} />}
      {apps.isError && listError === undefined && (
        <ErrorAlert error={apps.error} what="The catalog" onRetry={() => void apps.refetch()} />
      )}
      {formError && (
        <ErrorAlert
          error={formError}
          what="This application"
          onRetry={() => launch.mutate(launch.variables!)}
        />
      )}
      {reviewing ? (
        <LaunchReview
          choice={{ app, version, resolvedVersion: resolved, profile, usdStageUri: stage }}
          appName={appName}
          launching={launch.isPending}
          onBack={() => setReviewing(false)}
          onLaunch={() =>
            launch.mutate({ app, version, resolvedVersion: resolved, profile, usdStageUri: stage })
          }
        />
      ) : (
        <Stack
          component="form"
          aria-label="Launch options"
          spacing={2}
          onSubmit={(e) => {
            e.preventDefault();
            if (!reviewBlocked) setReviewing(true);
          }}
        >
          <AppField
            value={app}
            apps={apps.data?.items ?? []}
            error={errorFor('app', app)}
            onChange={(id) => set({ app: id, version: '', profile: '' })}
          />
          <VersionField
            value={version}
            versions={versions.data ?? []}
            error={errorFor('version', version)}
            onChange={(v) => set({ version: v === 'latest' ? '' : v, profile: '' })}
          />
          <ProfileField
            value={profile}
            profiles={profiles.data ?? []}
            error={errorFor('profile', profile)}
            onChange={(p) => set({ profile: p })}
          />
          {profiles.isSuccess && profiles.data.length === 0 && (
            <Alert severity="warning">No profile applies to this version.</Alert>
          )}
          <TextField
            label="USD stage URI (optional)"
            value={stage}
            onChange={(e) => set({ usd_stage_uri: e.target.value })}
            error={Boolean(errorFor('usd_stage_uri', stage))}
            helperText={
              errorFor('usd_stage_uri', stage) ??
              'A stage for the application to open, e.g. omniverse://host/stage.usd'
            }
          />
          <ReasonedButton type="submit" variant="contained" reason={reviewBlocked}>
            Review
          </ReasonedButton>
        </Stack>
      )}
    </Stack>
  );
}
