/** The banner over a retracted context (inspector/retraction.ts decides when): an alert, with reason and time. */
import type { RetractionNotice } from '../../inspector/retraction.js'
import { Time } from '../ui.js'

export function RetractionBanner({ notice }: { notice: RetractionNotice | null }) {
  if (notice === null) return null
  return (
    <div class="banner banner-retracted" role="alert" data-retracted="">
      <strong>Retracted.</strong> The registry serves this context as retracted: its producer withdrew it
      {notice.at !== null && (
        <>
          {' '}
          on <Time value={notice.at} />
        </>
      )}
      {notice.reason !== null ? (
        <>
          , saying: <q data-retraction-reason="">{notice.reason}</q>
        </>
      ) : (
        ' (no reason given)'
      )}
      .
    </div>
  )
}
