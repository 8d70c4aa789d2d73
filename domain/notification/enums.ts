// NotificationCategoryTypeDTO: the categories a notification (an account log line) belongs to. Neither
// the reference nor the spec gives ids; ours start at 0 as the reference's example does, one per
// category of the account logs (LogDTO.category).

export const notificationCategoryTypes: readonly { id: number; name: string }[] = [
  { id: 0, name: 'CONNECTION' },
  { id: 1, name: 'TRADING' },
  { id: 2, name: 'COPY' },
  { id: 3, name: 'BALANCE' },
  { id: 4, name: 'PROTECTION' },
];
