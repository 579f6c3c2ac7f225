/**
 * The scenario `acdp demo` plays: three agents watching a market. A collector publishes raw snapshots, an
 * analyst derives analyses from them (and corrects one by superseding it), a forecaster derives predictions
 * and finally an alert. Ten contexts, `derived_from` links across all three agents, one supersession.
 * Data only: commands/demo.ts publishes it.
 */

/** The three producers; each gets a fresh did:key per demo run. */
export const DEMO_AGENTS = ['collector', 'analyst', 'forecaster'] as const
/** One of {@link DEMO_AGENTS}. */
export type DemoAgent = (typeof DEMO_AGENTS)[number]

/** One publication. `derivedFrom` and `supersedes` name earlier steps (1-based). */
export interface DemoStep {
  agent: DemoAgent
  type: 'data_snapshot' | 'analysis' | 'prediction' | 'alert'
  title: string
  summary: string
  metadata: Record<string, unknown>
  derivedFrom: number[]
  supersedes?: number
}

/** `scenario_id` sent with POST /runs/started and put in every context's metadata. */
export const SCENARIO_ID = 'market-watch'

/** The ten publications, in order: snapshots, analyses (one corrected by supersession), predictions, an alert. */
export const MARKET_WATCH_STEPS: readonly DemoStep[] = [
  {
    agent: 'collector',
    type: 'data_snapshot',
    title: 'BTC/USD spot price',
    summary: 'Mid price sampled from three venues.',
    metadata: { pair: 'BTC/USD', mid: 67250.5, venues: 3 },
    derivedFrom: [],
  },
  {
    agent: 'collector',
    type: 'data_snapshot',
    title: 'ETH/USD spot price',
    summary: 'Mid price sampled from three venues.',
    metadata: { pair: 'ETH/USD', mid: 3180.25, venues: 3 },
    derivedFrom: [],
  },
  {
    agent: 'collector',
    type: 'data_snapshot',
    title: 'Order-book depth',
    summary: 'Depth within 1% of mid on the largest venue.',
    metadata: { btc_depth_usd: 41_000_000, eth_depth_usd: 17_500_000 },
    derivedFrom: [],
  },
  {
    agent: 'analyst',
    type: 'analysis',
    title: 'Volatility summary',
    summary: 'Realised volatility over the last 24 h.',
    metadata: { btc_vol_24h: 0.031, eth_vol_24h: 0.042 },
    derivedFrom: [1, 2],
  },
  {
    agent: 'analyst',
    type: 'analysis',
    title: 'Liquidity review',
    summary: 'Depth is adequate for block trades below 5 M USD.',
    metadata: { block_limit_usd: 5_000_000 },
    derivedFrom: [3],
  },
  {
    agent: 'analyst',
    type: 'analysis',
    title: 'Cross-asset correlation',
    summary: 'BTC and ETH moved together (rho 0.86).',
    metadata: { rho: 0.86 },
    derivedFrom: [1, 2, 3],
  },
  {
    agent: 'analyst',
    type: 'analysis',
    title: 'Volatility summary (corrected)',
    summary: 'Recomputed with the full sample; ETH volatility was overstated.',
    metadata: { btc_vol_24h: 0.031, eth_vol_24h: 0.037 },
    derivedFrom: [1, 2],
    supersedes: 4,
  },
  {
    agent: 'forecaster',
    type: 'prediction',
    title: '24 h price range',
    summary: 'BTC 65.9k–68.6k, ETH 3.07k–3.29k at 80% confidence.',
    metadata: { horizon_hours: 24, confidence: 0.8 },
    derivedFrom: [7, 6],
  },
  {
    agent: 'forecaster',
    type: 'prediction',
    title: 'Liquidity outlook',
    summary: 'Depth expected to stay within 10% of today.',
    metadata: { horizon_hours: 24 },
    derivedFrom: [5],
  },
  {
    agent: 'forecaster',
    type: 'alert',
    title: 'Volatility breakout watch',
    summary: 'Breakout risk elevated if BTC leaves the forecast range.',
    metadata: { severity: 'medium' },
    derivedFrom: [8, 9],
  },
]
