#ifndef TESSERA_WEB_H
#define TESSERA_WEB_H

/// One file of the server's pages (Sources/CTesseraWeb/Web), compiled into the binary.
struct tessera_web_file {
    /// The file's name, as served under /web/.
    const char *name;
    const unsigned char *bytes;
    unsigned long length;
};

/// The `index`-th page file, or NULL past the last.
const struct tessera_web_file *tessera_web_file(int index);

#endif
