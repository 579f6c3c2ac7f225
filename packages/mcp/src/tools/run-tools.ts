/** list_runs and get_run: the control plane's GET /runs and GET /runs/:runId, when one is configured. */
import { z } from 'zod'
import type { ControlPlaneAccess } from '../config.js'
import { getJson } from '../json-get.js'
import type { ToolContext, ToolDefinition } from '../tool-context.js'
import { ToolError } from '../tool-result.js'

const listInput = {
  status: z.string().min(1).max(64).optional().describe('only runs in this status (e.g. running, completed)'),
  scenario_id: z.string().min(1).max(200).optional().describe('only runs of this scenario'),
  limit: z.number().int().min(1).max(100).optional().describe('runs per page'),
  offset: z.number().int().min(0).max(1_000_000).optional().describe('runs skipped'),
}

const getInput = { run_id: z.string().min(1).max(200).describe('the run id') }

export function listRunsTool(context: ToolContext): ToolDefinition<typeof listInput> {
  return {
    name: 'list_runs',
    title: 'List runs',
    description: "Lists the control plane's runs, newest first (one page: data, total, limit, offset).",
    input: listInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (args, signal) => {
      const target = controlPlane(context)
      const params = new URLSearchParams()
      if (args.status !== undefined) params.set('status', args.status)
      if (args.scenario_id !== undefined) params.set('scenarioId', args.scenario_id)
      if (args.limit !== undefined) params.set('limit', String(args.limit))
      if (args.offset !== undefined) params.set('offset', String(args.offset))
      const suffix = params.size === 0 ? '' : `?${params}`
      return { page: await getJson(context.access.fetch, endpoint(target, `/runs${suffix}`), headers(target), signal) }
    },
  }
}

export function getRunTool(context: ToolContext): ToolDefinition<typeof getInput> {
  return {
    name: 'get_run',
    title: 'Get a run',
    description: 'Answers one control-plane run: its status, timing and the contexts filed under it.',
    input: getInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (args, signal) => {
      const target = controlPlane(context)
      const path = `/runs/${encodeURIComponent(args.run_id)}`
      return { run: await getJson(context.access.fetch, endpoint(target, path), headers(target), signal) }
    },
  }
}

function controlPlane(context: ToolContext): ControlPlaneAccess {
  const target = context.config.controlPlane
  if (target === undefined) {
    throw new ToolError('no_control_plane', 'this server was started without a control plane (--control-plane URL)')
  }
  return target
}

function endpoint(target: ControlPlaneAccess, path: string): string {
  return `${target.baseUrl.replace(/\/+$/, '')}${path}`
}

function headers(target: ControlPlaneAccess): Record<string, string> {
  return {
    ...(target.apiKey === undefined ? {} : { authorization: `Bearer ${target.apiKey}` }),
    ...(target.tenantId === undefined ? {} : { 'x-tenant-id': target.tenantId }),
  }
}
