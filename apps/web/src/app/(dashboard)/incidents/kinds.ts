// Incident kinds in words, for the Incidents page and a job's page.
export const INCIDENT_KIND_TEXT = {
  dead: 'A run went dead',
  failing: 'Runs keep failing',
  late: 'Did not start on time',
} as const;
