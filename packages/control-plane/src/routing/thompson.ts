/**
 * Thompson sampling over Beta(α, β) arms (product spec "Bandit arm"): with probability `explorationFraction` a
 * candidate is drawn uniformly, otherwise each arm draws a Beta sample and the highest wins. Beta draws come from
 * two Gamma draws (Marsaglia–Tsang, 2000); the normal deviates from Box–Muller. Randomness is injected, so the
 * selection is reproducible in tests.
 */

/** A uniform draw in the open interval (0, 1). */
export type Uniform = () => number

export interface ArmState {
  agentDid: string
  alpha: number
  beta: number
}

export type Selection =
  | { agentDid: string; reason: 'forced_only_candidate' }
  | { agentDid: string; reason: 'explore' }
  | { agentDid: string; reason: 'thompson'; sample: number }

export function selectArm(arms: readonly ArmState[], explorationFraction: number, uniform: Uniform): Selection | null {
  const first = arms[0]
  if (first === undefined) return null
  if (arms.length === 1) return { agentDid: first.agentDid, reason: 'forced_only_candidate' }
  if (uniform() < explorationFraction) {
    const pick = arms[Math.min(arms.length - 1, Math.floor(uniform() * arms.length))] ?? first
    return { agentDid: pick.agentDid, reason: 'explore' }
  }
  let best = first
  let bestSample = -1
  for (const arm of arms) {
    const sample = sampleBeta(arm.alpha, arm.beta, uniform)
    if (sample > bestSample) {
      best = arm
      bestSample = sample
    }
  }
  return { agentDid: best.agentDid, reason: 'thompson', sample: bestSample }
}

export function sampleBeta(alpha: number, beta: number, uniform: Uniform): number {
  const x = sampleGamma(alpha, uniform)
  const y = sampleGamma(beta, uniform)
  return x / (x + y)
}

function sampleGamma(shape: number, uniform: Uniform): number {
  if (shape < 1) return sampleGamma(shape + 1, uniform) * uniform() ** (1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number
    let v: number
    do {
      x = normal(uniform)
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const u = uniform()
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
  }
}

function normal(uniform: Uniform): number {
  return Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())
}
