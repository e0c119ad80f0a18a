// spyglass's Java precise pass (docs/precise.md): the JDK's own compiler API (JavacTask
// attribution, Trees) resolves every name of a source tree; the result is written as a
// SCIP index (the same facts scip-python and scip-typescript give: definitions, and uses
// with their roles), which spyglass imports per file by content digest.
//
// Usage: java SpyglassJavac ROOT LIST OUT JDK_VERSION
//   ROOT  the workspace (read-only); LIST  a file naming the sources, one path relative
//   to ROOT a line; OUT  the SCIP index written.
// Nothing of the repository runs: annotation processors are off (-proc:none), no plugin,
// an empty class path (the repository's jars are not read), no build step. A source tree
// whose packages belong to a module of the JDK (the JDK's own sources) is compiled as a
// patch of that module. Compile errors leave names unresolved, never wrong.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.lang.model.element.*;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Types;
import javax.tools.*;
import java.io.*;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class SpyglassJavac {
    static final int ROLE_DEFINITION = 1, ROLE_IMPORT = 2, ROLE_WRITE = 4, ROLE_READ = 8;

    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<String> names = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            if (!line.isEmpty()) names.add(line);
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) throw new IllegalStateException("no system Java compiler (a JRE, not a JDK)");
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm = compiler.getStandardFileManager(diags, null, StandardCharsets.UTF_8);
        List<File> files = new ArrayList<>();
        for (String n : names) files.add(root.resolve(n).toFile());
        Path empty = Files.createTempDirectory("spyglass-javac-cp");
        List<String> options = new ArrayList<>(List.of(
                "-proc:none", "-implicit:none", "-Xlint:none", "-nowarn", "-encoding", "UTF-8",
                "-classpath", empty.toString(), "-sourcepath", empty.toString(),
                "-Xmaxerrs", "100"));
        options.addAll(patches(compiler, fm, files));
        JavacTask task = (JavacTask) compiler.getTask(null, fm, diags, options, null,
                fm.getJavaFileObjectsFromFiles(files));
        List<CompilationUnitTree> units = new ArrayList<>();
        for (CompilationUnitTree cu : task.parse()) units.add(cu);
        try {
            task.analyze();
        } catch (RuntimeException | StackOverflowError t) {  // a compiler crash on one
            System.err.println("javac analyze stopped: " + t);  // construct: the rest stays
        }
        long errors = diags.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        System.err.println("javac: " + errors + " compile problem(s) of kind ERROR reported"
                + " (names they touch stay unresolved)");
        Trees trees = Trees.instance(task);
        Types types = task.getTypes();
        ByteArrayOutputStream index = new ByteArrayOutputStream();
        ByteArrayOutputStream tool = new ByteArrayOutputStream();
        field(tool, 1, "javac");
        field(tool, 2, args[3]);
        ByteArrayOutputStream meta = new ByteArrayOutputStream();
        field(meta, 2, tool.toByteArray());
        field(meta, 3, root.toUri().toString());
        field(index, 1, meta.toByteArray());
        for (CompilationUnitTree cu : units) {
            Path p = Paths.get(cu.getSourceFile().toUri()).toAbsolutePath().normalize();
            if (!p.startsWith(root)) continue;
            String rel = root.relativize(p).toString().replace(File.separatorChar, '/');
            Scanner s = new Scanner(trees, types, cu, cu.getSourceFile().getCharContent(true).toString());
            try {
                s.scan(cu, null);
            } catch (RuntimeException | StackOverflowError t) {
                System.err.println("scan " + rel + " stopped: " + t);
            }
            ByteArrayOutputStream doc = new ByteArrayOutputStream();
            field(doc, 1, rel);
            for (byte[] occ : s.occurrences) field(doc, 2, occ);
            field(doc, 4, "java");
            field(index, 2, doc.toByteArray());
        }
        Path out = Paths.get(args[2]);
        Path partial = out.resolveSibling(out.getFileName() + ".part");
        Files.write(partial, index.toByteArray());
        Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING);
    }

    /** `--patch-module M=ROOTS` for each module of the JDK that owns a package the sources
     *  declare (the JDK's own sources compile only as part of their module). */
    static List<String> patches(JavaCompiler compiler, StandardJavaFileManager fm, List<File> files)
            throws IOException {
        Map<String, String> owner = new HashMap<>();
        for (ModuleReference m : ModuleFinder.ofSystem().findAll()) {
            for (String pkg : m.descriptor().packages()) owner.put(pkg, m.descriptor().name());
        }
        Map<String, Set<String>> roots = new TreeMap<>();
        JavacTask parser = (JavacTask) compiler.getTask(null, fm, d -> { },
                List.of("-proc:none"), null, fm.getJavaFileObjectsFromFiles(files));
        for (CompilationUnitTree cu : parser.parse()) {
            if (cu.getPackageName() == null) continue;
            String pkg = cu.getPackageName().toString();
            String module = owner.get(pkg);
            if (module == null) continue;
            Path dir = Paths.get(cu.getSourceFile().toUri()).toAbsolutePath().getParent();
            for (int i = pkg.split("\\.").length; i > 0 && dir != null; i--) dir = dir.getParent();
            if (dir != null) roots.computeIfAbsent(module, k -> new TreeSet<>()).add(dir.toString());
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : roots.entrySet()) {
            out.add("--patch-module");
            out.add(e.getKey() + "=" + String.join(File.pathSeparator, e.getValue()));
        }
        return out;
    }

    // -- protobuf wire format (scip.proto's field numbers) ------------------------------
    static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    static void field(ByteArrayOutputStream out, int number, byte[] data) {
        varint(out, ((long) number << 3) | 2);
        varint(out, data.length);
        out.write(data, 0, data.length);
    }

    static void field(ByteArrayOutputStream out, int number, String text) {
        if (!text.isEmpty()) field(out, number, text.getBytes(StandardCharsets.UTF_8));
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        final Trees trees;
        final Types types;
        final SourcePositions pos;
        final CompilationUnitTree cu;
        final String src;
        final List<byte[]> occurrences = new ArrayList<>();
        final Set<Long> seen = new HashSet<>();
        final Map<Element, String> symbols = new HashMap<>();

        Scanner(Trees trees, Types types, CompilationUnitTree cu, String src) {
            this.trees = trees;
            this.types = types;
            this.pos = trees.getSourcePositions();
            this.cu = cu;
            this.src = src;
        }

        @Override
        public Void visitPackage(PackageTree node, Void v) {
            return null;  // a package name is no use of a declaration
        }

        @Override
        public Void visitImport(ImportTree node, Void v) {
            Tree q = node.getQualifiedIdentifier();
            if (node.isStatic() && q instanceof MemberSelectTree) {
                // `import static a.B.m;`: every member of B named m, at the name.
                MemberSelectTree sel = (MemberSelectTree) q;
                String name = sel.getIdentifier().toString();
                long end = pos.getEndPosition(cu, sel);
                Element owner = trees.getElement(new TreePath(getCurrentPath(), sel.getExpression()));
                if (owner != null && end > 0 && !name.equals("*")) {
                    for (Element member : owner.getEnclosedElements()) {
                        if (member.getSimpleName().contentEquals(name)) {
                            occurrence(member, name, end - name.length(), ROLE_IMPORT);
                        }
                    }
                }
                scan(sel.getExpression(), v);
                return null;
            }
            return super.visitImport(node, v);
        }

        @Override
        public Void visitClass(ClassTree node, Void v) {
            Element e = trees.getElement(getCurrentPath());
            if (e != null) {
                long from = Math.max(pos.getStartPosition(cu, node), pos.getEndPosition(cu, node.getModifiers()));
                definition(e, from);
            }
            return super.visitClass(node, v);
        }

        @Override
        public Void visitMethod(MethodTree node, Void v) {
            Element e = trees.getElement(getCurrentPath());
            if (e != null && e.getKind() != ElementKind.CONSTRUCTOR) {
                Tree after = node.getReturnType() != null ? node.getReturnType() : node.getModifiers();
                definition(e, Math.max(pos.getStartPosition(cu, node), pos.getEndPosition(cu, after)));
            }
            return super.visitMethod(node, v);
        }

        @Override
        public Void visitVariable(VariableTree node, Void v) {
            Element e = trees.getElement(getCurrentPath());
            if (e != null) {
                long from = pos.getStartPosition(cu, node);
                if (node.getType() != null) from = Math.max(from, pos.getEndPosition(cu, node.getType()));
                definition(e, from);
            }
            return super.visitVariable(node, v);
        }

        @Override
        public Void visitIdentifier(IdentifierTree node, Void v) {
            use(node.getName().toString(), pos.getStartPosition(cu, node));
            return super.visitIdentifier(node, v);
        }

        @Override
        public Void visitMemberSelect(MemberSelectTree node, Void v) {
            long end = pos.getEndPosition(cu, node);
            String name = node.getIdentifier().toString();
            if (end > 0) use(name, end - name.length());
            return super.visitMemberSelect(node, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void v) {
            long end = pos.getEndPosition(cu, node);
            String name = node.getName().toString();
            if (end > 0 && !name.equals("<init>")) use(name, end - name.length());
            return super.visitMemberReference(node, v);
        }

        private void use(String name, long start) {
            if (start < 0 || name.equals("this") || name.equals("super") || name.equals("*")) return;
            Element e = trees.getElement(getCurrentPath());
            if (e == null) return;
            Tree parent = getCurrentPath().getParentPath() == null ? null
                    : getCurrentPath().getParentPath().getLeaf();
            boolean write = parent instanceof AssignmentTree
                    && ((AssignmentTree) parent).getVariable() == getCurrentPath().getLeaf();
            occurrence(e, name, start, write ? ROLE_WRITE : ROLE_READ);
        }

        private void definition(Element e, long from) {
            String name = e.getSimpleName().toString();
            if (name.isEmpty() || from < 0) return;
            int at = wordAt(src, name, (int) from);
            if (at >= 0) occurrence(e, name, at, ROLE_DEFINITION);
        }

        private void occurrence(Element e, String name, long start, int roles) {
            String symbol = symbol(e);
            if (symbol == null || start < 0 || !src.startsWith(name, (int) start)) return;
            long line = cu.getLineMap().getLineNumber(start);
            long col = start - cu.getLineMap().getStartPosition(line);
            if (!seen.add((line << 32) | (col << 1) | (roles == ROLE_DEFINITION ? 1 : 0))) return;
            ByteArrayOutputStream range = new ByteArrayOutputStream();
            varint(range, line - 1);
            varint(range, col);
            varint(range, col + name.length());
            ByteArrayOutputStream occ = new ByteArrayOutputStream();
            field(occ, 1, range.toByteArray());
            field(occ, 2, symbol);
            varint(occ, 3 << 3);
            varint(occ, roles);
            occurrences.add(occ.toByteArray());
        }

        /** The element's SCIP symbol: types, methods (with their erased parameter types),
         *  fields, enum constants and record components; null for locals and packages. */
        private String symbol(Element e) {
            if (symbols.containsKey(e)) return symbols.get(e);
            String d = descriptor(e);
            String s = d == null ? null : "spyglass-javac . . . " + d;
            symbols.put(e, s);
            return s;
        }

        private String descriptor(Element e) {
            ElementKind k = e.getKind();
            if (k.isClass() || k.isInterface()) {
                Element up = e.getEnclosingElement();
                String name = escape(e.getSimpleName().toString());
                if (up instanceof PackageElement) {
                    String pkg = ((PackageElement) up).getQualifiedName().toString();
                    StringBuilder b = new StringBuilder();
                    for (String part : pkg.split("\\.")) if (!part.isEmpty()) b.append(escape(part)).append('/');
                    return b + name + "#";
                }
                String outer = up == null ? null : descriptor(up);
                if (outer == null || !(up.getKind().isClass() || up.getKind().isInterface())) return null;
                return outer + name + "#";  // local and anonymous classes: no symbol
            }
            Element up = e.getEnclosingElement();
            if (up == null || !(up.getKind().isClass() || up.getKind().isInterface())) return null;
            String owner = descriptor(up);
            if (owner == null) return null;
            String name = escape(e.getSimpleName().toString());
            if (k == ElementKind.METHOD) {
                StringBuilder sig = new StringBuilder();
                for (VariableElement p : ((ExecutableElement) e).getParameters()) {
                    TypeMirror t = types.erasure(p.asType());
                    sig.append(sig.length() == 0 ? "" : ",").append(t.toString().replace('/', '.'));
                }
                return owner + name + "(" + escape(sig.toString()) + ").";
            }
            if (k == ElementKind.FIELD || k == ElementKind.ENUM_CONSTANT) return owner + name + ".";
            if (k == ElementKind.RECORD_COMPONENT) return owner + name + ".";
            return null;
        }

        private static String escape(String name) {
            if (name.matches("[A-Za-z0-9_+$-]+") || name.isEmpty()) return name;
            return "`" + name.replace("`", "``") + "`";
        }

        private static int wordAt(String src, String name, int from) {
            int i = src.indexOf(name, from);
            while (i >= 0) {
                boolean left = i == 0 || !Character.isJavaIdentifierPart(src.charAt(i - 1));
                int end = i + name.length();
                boolean right = end >= src.length() || !Character.isJavaIdentifierPart(src.charAt(end));
                if (left && right) return i;
                i = src.indexOf(name, i + 1);
            }
            return -1;
        }
    }
}
