// Create a segment, then add its constraints on the segment's page.

import { useQueryClient } from '@tanstack/react-query';
import * as api from '../../api/api.js';
import { keys } from '../../api/queries.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { navigate, paths } from '../../lib/router.js';
import { SegmentForm } from './segment-form.js';

export function NewSegmentPage({ ns }: { ns: string }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  return (
    <>
      <PageHeader title="New segment" crumbs={[{ label: 'Segments', to: paths.segments(ns) }]} />
      <SegmentForm
        submitLabel="Create segment"
        onCancel={() => navigate(paths.segments(ns))}
        onSave={async (input) => {
          const segment = await api.createSegment(ns, input);
          await queryClient.invalidateQueries({ queryKey: keys.segments(ns) });
          notify(`Segment "${segment.key}" created; now add its constraints`);
          navigate(paths.segment(ns, segment.key));
        }}
      />
    </>
  );
}
