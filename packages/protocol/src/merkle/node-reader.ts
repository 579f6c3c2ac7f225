/**
 * The storage seam for proof generation: registries keep the hash of every complete perfect subtree
 * (`docs/protocol/log.md`, "Stored-node layout") and expose them through this interface.
 */
import type { MerkleProofPlan } from './proof-plan.js'
import { assembleProof } from './proof-plan.js'
import type { MerkleNodeAddress } from './subtree.js'

/**
 * Read access to stored perfect-subtree hashes.
 *
 * Contract: `readNodes` returns the raw 32-byte hash of every requested subtree, in request order (duplicates
 * answered each time). A perfect subtree never changes once its last leaf is appended, so any complete node
 * may be served at any later time, which is what makes proofs at historical tree sizes cheap. Asking for a
 * node that is not complete yet is a caller bug: implementations throw rather than return a placeholder.
 * Implementations may answer synchronously (in memory, `node:sqlite`) or asynchronously (PostgreSQL).
 */
export interface MerkleNodeReader {
  readNodes(addresses: readonly MerkleNodeAddress[]): readonly Uint8Array[] | Promise<readonly Uint8Array[]>
}

/**
 * Reads every node `plan` needs with one `readNodes` call and assembles the proof elements.
 * Throws whatever the reader throws, and `TypeError` if the reader breaks its contract.
 */
export async function readProof(reader: MerkleNodeReader, plan: MerkleProofPlan): Promise<Uint8Array[]> {
  if (plan.addresses.length === 0) return assembleProof(plan, [])
  return assembleProof(plan, await reader.readNodes(plan.addresses))
}
