/** The audit log's filters: a person, an action, a day to start from; applied together. */
import { useState } from 'react';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { AUDIT_ACTIONS, type AuditFilters } from '../api/audit-filters';

export interface AuditFilterFormProps {
  filters: AuditFilters;
  onApply: (filters: AuditFilters) => void;
}

/** Its fields start from `filters`; give it a `key` that changes with them to start again. */
export function AuditFilterForm({ filters, onApply }: AuditFilterFormProps) {
  const [draft, setDraft] = useState(filters);
  const field = <K extends keyof AuditFilters>(name: K, value: AuditFilters[K]) =>
    setDraft((old) => ({ ...old, [name]: value }));
  return (
    <Stack
      component="form"
      role="search"
      aria-label="Filter the audit log"
      direction={{ xs: 'column', sm: 'row' }}
      spacing={1}
      useFlexGap
      sx={{ alignItems: { sm: 'center' }, flexWrap: 'wrap' }}
      onSubmit={(e) => {
        e.preventDefault();
        onApply({ ...draft, person: draft.person.trim() });
      }}
    >
      <TextField
        size="small"
        label="Person"
        value={draft.person}
        onChange={(e) => field('person', e.target.value)}
      />
      <TextField
        size="small"
        select
        label="Action"
        value={draft.action}
        onChange={(e) => field('action', e.target.value as AuditFilters['action'])}
        sx={{ minWidth: 200 }}
      >
        <MenuItem value="">Any action</MenuItem>
        {Object.entries(AUDIT_ACTIONS).map(([action, words]) => (
          <MenuItem key={action} value={action}>
            {words}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        size="small"
        type="date"
        label="Since"
        value={draft.since}
        onChange={(e) => field('since', e.target.value)}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <Button type="submit" variant="outlined">
        Apply filters
      </Button>
    </Stack>
  );
}
