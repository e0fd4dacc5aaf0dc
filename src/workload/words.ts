// A small vocabulary for synthetic text: the workload's prompts and the mock's outputs.
export const WORDS: readonly string[] = (
  "the of and to in is that for it as was with be by on not he this are or his from at which " +
  "but have an they you were her she there been one all we their has would when if so no what " +
  "up out said its about into than them can only other time new some could these two may first " +
  "then do any like my now over such our man me even most made after also did many before must " +
  "through back years where much your way well down should because each just those people how " +
  "too little state good very make world still own see men work long get here between both life " +
  "being under never day same another know while last might us great old year off come since " +
  "against go came right used take three model token server latency stream batch queue decode"
).split(" ");
