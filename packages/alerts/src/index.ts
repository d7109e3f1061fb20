// Alerts and incidents (docs/alerts.md): channel senders, the notification dispatcher and the
// late watchdog. The incident rules themselves run in SQL where runs finish (@belfry/db).
export * from './types';
export * from './render';
export * from './senders';
export * from './dispatcher';
export * from './watchdog';
