/**
 * The built-in reference domain pack, `finance` v0.1.0 (product spec "Domain pack"): two restricted context types
 * with their required metadata fields, two agent templates, and a small search vocabulary. Enable it with
 * `DOMAIN_PACKS=finance`.
 */
import type { DomainPack } from './domain-packs.js'

export const FINANCE_PACK: DomainPack = {
  id: 'finance',
  version: '0.1.0',
  label: 'Finance (reference)',
  agentTemplates: [
    {
      id: 'finance.publisher',
      description: 'Publishes earnings reports and analyst notes for covered tickers.',
      capabilities: ['urn:acdp:cap:publish:earnings_report:finance', 'urn:acdp:cap:publish:analyst_note:finance'],
    },
    {
      id: 'finance.researcher',
      description: 'Retrieves finance contexts and derives analyses from them.',
      capabilities: ['urn:acdp:cap:retrieve:earnings_report:finance', 'urn:acdp:cap:publish:analysis:finance'],
    },
  ],
  contextTypes: [
    {
      contextType: 'earnings_report',
      requiredFields: ['fiscal_quarter', 'ticker', 'currency'],
      defaultVisibility: 'restricted',
    },
    { contextType: 'analyst_note', requiredFields: ['ticker', 'rating'], defaultVisibility: 'restricted' },
  ],
  searchVocab: {
    synonyms: { eps: ['earnings per share'], revenue: ['sales', 'turnover'], guidance: ['outlook', 'forecast'] },
    stopWords: ['inc', 'corp', 'ltd'],
  },
}
