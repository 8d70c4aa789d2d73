// CurrencyTypeDTO: the currencies a project is billed in, with the reference's ids.
export const currencyTypes: readonly { id: number; name: string }[] = [
  { id: 1, name: 'USD' },
  { id: 2, name: 'EUR' },
  { id: 3, name: 'CHF' },
];

export const isCurrencyType = (id: number): boolean => currencyTypes.some((c) => c.id === id);
