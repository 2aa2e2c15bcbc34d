import { useQuery } from '@tanstack/react-query';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { adminQueries } from '../api/admin-queries';
import type { components } from '../../../../api/schema';

type Cluster = components['schemas']['Cluster'];

/**
 * What holds the GPUs now: people's sessions, warm applications (kept started so that a launch opens at
 * once) and the queue, in all and per profile. Nothing at all where the service does not tell.
 */
export function CapacitySummary() {
  const { data } = useQuery({ ...adminQueries.capacity(), select: (reading) => reading?.capacity });
  if (!data) return null;
  const free = Math.max(0, data.capacity - data.running - data.warm);
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-labelledby="capacity-heading">
      <Typography id="capacity-heading" variant="h6" component="h2">
        Capacity
      </Typography>
      <Typography>
        {`${data.running} of ${data.capacity} GPUs in use by sessions, ${data.warm} held by warm applications, ` +
          `${free} free; ${data.queued} waiting.`}
      </Typography>
      {data.by_profile.length > 0 && (
        <Stack component="ul" sx={{ m: 0, pl: 3 }} aria-label="Capacity by profile">
          {data.by_profile.map((row) => (
            <Typography component="li" key={row.profile} variant="body2">
              {`${row.profile}: ${row.running} running, ${row.queued} waiting` +
                (row.warm_target > 0 ? `, ${row.warm} of ${row.warm_target} warm` : '')}
            </Typography>
          ))}
        </Stack>
      )}
      {data.cluster && <ClusterSummary cluster={data.cluster} />}
    </Paper>
  );
}

/**
 * Where sessions run on a cluster (the Slurm runner): GPUs per partition as Slurm counts them, the nodes that
 * are down or drained, and for each profile whether a node that is up can run it, and why.
 */
function ClusterSummary({ cluster }: { cluster: Cluster }) {
  return (
    <>
      <Stack component="ul" sx={{ m: 0, pl: 3 }} aria-label="Partitions">
        {cluster.partitions.map((partition) => (
          <Typography component="li" key={partition.name} variant="body2">
            {`Partition ${partition.name}: ${partition.gpus_in_use} of ${partition.gpus} GPUs in use on ` +
              `${partition.nodes} node${partition.nodes === 1 ? '' : 's'}` +
              (partition.nodes_down.length > 0
                ? `; down or drained: ${partition.nodes_down.join(', ')}`
                : '')}
          </Typography>
        ))}
      </Stack>
      <Stack component="ul" sx={{ m: 0, pl: 3 }} aria-label="Profiles on the cluster">
        {cluster.profiles.map((row) => (
          <Typography
            component="li"
            key={row.profile}
            variant="body2"
            color={row.runnable ? undefined : 'error'}
          >
            {`${row.profile}: ${row.runnable ? 'runs on the cluster' : 'cannot run there'} (${row.message})`}
          </Typography>
        ))}
      </Stack>
    </>
  );
}
