// A name never defined and a variable never used: ESLint must refuse both.
const unused = 1;
documnet.title = "x";
