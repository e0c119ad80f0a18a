// The Java accuracy oracle: the JDK's own compiler resolves every identifier exactly.
//
// Usage: java JavaOracle ROOT OUT FILE...   (FILE relative to ROOT; more javac options,
// one a line, in $JAVA_ORACLE_OPTIONS)
// Parses and attributes the files (JavacTask.analyze), then walks every tree: each
// identifier, member select and method reference whose symbol is declared in one of the
// files is written to OUT as one tab-separated line:
//   use_path use_line use_col role decl_path decl_line decl_col decl_name
// role is "call" where the name is the method of a method invocation or a method
// reference, "new" for the class name of `new C()`, else "ref". Lines are 1-based,
// columns 0-based characters. Declarations themselves are not uses. Compiler errors are
// counted on stderr (a missing library leaves its names unresolved, never wrong).
import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.lang.model.element.*;
import javax.tools.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class JavaOracle {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]);
        List<File> files = new ArrayList<>();
        for (int i = 2; i < args.length; i++) files.add(root.resolve(args[i]).toFile());
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm = compiler.getStandardFileManager(diags, null, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>(
                List.of("-proc:none", "-Xlint:none", "-nowarn", "-encoding", "UTF-8"));
        String extra = System.getenv("JAVA_ORACLE_OPTIONS");  // one javac option a line
        if (extra != null && !extra.isEmpty()) options.addAll(Arrays.asList(extra.split("\n")));
        JavacTask task = (JavacTask) compiler.getTask(null, fm, diags, options, null,
                fm.getJavaFileObjectsFromFiles(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        long errors = diags.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        System.err.println("javac errors: " + errors);
        Trees trees = Trees.instance(task);
        Map<CompilationUnitTree, String> rel = new HashMap<>();
        Map<CompilationUnitTree, String> text = new HashMap<>();
        for (CompilationUnitTree cu : units) {
            Path p = Paths.get(cu.getSourceFile().toUri());
            rel.put(cu, root.toAbsolutePath().normalize().relativize(p.toAbsolutePath().normalize())
                    .toString().replace(File.separatorChar, '/'));
            text.put(cu, cu.getSourceFile().getCharContent(true).toString());
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[1])))) {
            for (CompilationUnitTree cu : units) {
                new Scanner(trees, cu, rel, text, out).scan(cu, null);
            }
        }
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        final Trees trees;
        final SourcePositions pos;
        final CompilationUnitTree cu;
        final Map<CompilationUnitTree, String> rel;
        final Map<CompilationUnitTree, String> text;
        final PrintWriter out;
        final Map<Element, String> declCache = new HashMap<>();

        Scanner(Trees trees, CompilationUnitTree cu, Map<CompilationUnitTree, String> rel,
                Map<CompilationUnitTree, String> text, PrintWriter out) {
            this.trees = trees;
            this.pos = trees.getSourcePositions();
            this.cu = cu;
            this.rel = rel;
            this.text = text;
            this.out = out;
        }

        @Override
        public Void visitPackage(PackageTree node, Void v) {
            return null;  // a package name is no use of a declaration
        }

        @Override
        public Void visitImport(ImportTree node, Void v) {
            // `import static a.B.m;` names members javac does not attribute: B's members
            // named m (methods and fields alike), each a use at the name.
            if (node.isStatic() && node.getQualifiedIdentifier() instanceof MemberSelectTree) {
                MemberSelectTree sel = (MemberSelectTree) node.getQualifiedIdentifier();
                String name = sel.getIdentifier().toString();
                long end = pos.getEndPosition(cu, sel);
                Element owner = trees.getElement(new TreePath(getCurrentPath(), sel.getExpression()));
                if (owner != null && end > 0 && !name.equals("*")) {
                    for (Element member : owner.getEnclosedElements()) {
                        if (member.getSimpleName().contentEquals(name)) {
                            write(member, name, end - name.length(), "ref");
                        }
                    }
                }
                scan(sel.getExpression(), v);
                return null;
            }
            return super.visitImport(node, v);
        }

        @Override
        public Void visitIdentifier(IdentifierTree node, Void v) {
            long start = pos.getStartPosition(cu, node);
            emit(node.getName().toString(), start);
            return super.visitIdentifier(node, v);
        }

        @Override
        public Void visitMemberSelect(MemberSelectTree node, Void v) {
            long end = pos.getEndPosition(cu, node);
            String name = node.getIdentifier().toString();
            if (end > 0) emit(name, end - name.length());
            return super.visitMemberSelect(node, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void v) {
            long end = pos.getEndPosition(cu, node);
            String name = node.getName().toString();
            if (end > 0 && !name.equals("<init>")) emit(name, end - name.length());
            return super.visitMemberReference(node, v);
        }

        private String role() {
            TreePath path = getCurrentPath();
            Tree leaf = path.getLeaf();
            Tree parent = path.getParentPath() == null ? null : path.getParentPath().getLeaf();
            if (leaf instanceof MemberReferenceTree) return "call";
            if (parent instanceof MethodInvocationTree
                    && ((MethodInvocationTree) parent).getMethodSelect() == leaf) return "call";
            if (parent instanceof NewClassTree
                    && ((NewClassTree) parent).getIdentifier() == leaf) return "new";
            if (parent instanceof ParameterizedTypeTree && path.getParentPath().getParentPath() != null
                    && path.getParentPath().getParentPath().getLeaf() instanceof NewClassTree) return "new";
            return "ref";
        }

        private void emit(String name, long start) {
            if (start < 0 || name.equals("this") || name.equals("super") || name.equals("*")) return;
            Element e = trees.getElement(getCurrentPath());
            if (e == null) return;
            write(e, name, start, role());
        }

        private void write(Element e, String name, long start, String role) {
            String decl = declaration(e);
            if (decl == null) return;
            String src = text.get(cu);
            if (!src.startsWith(name, (int) start)) return;  // synthetic or unmatched position
            long line = cu.getLineMap().getLineNumber(start);
            long col = start - cu.getLineMap().getStartPosition(line);
            out.println(rel.get(cu) + "\t" + line + "\t" + col + "\t" + role + "\t" + decl);
        }

        /** "path\tline\tcol\tname" of an element declared in the analysed files, else null. */
        private String declaration(Element e) {
            if (declCache.containsKey(e)) return declCache.get(e);
            String found = null;
            ElementKind kind = e.getKind();
            boolean wanted = kind.isClass() || kind.isInterface() || kind == ElementKind.METHOD
                    || kind == ElementKind.FIELD || kind == ElementKind.ENUM_CONSTANT
                    || kind == ElementKind.RECORD_COMPONENT;
            TreePath dp = wanted ? trees.getPath(e) : null;
            if (dp != null && rel.containsKey(dp.getCompilationUnit())) {
                CompilationUnitTree dcu = dp.getCompilationUnit();
                Tree t = dp.getLeaf();
                String name = e.getSimpleName().toString();
                long from = pos.getStartPosition(dcu, t);
                if (t instanceof ClassTree) {
                    from = Math.max(from, pos.getEndPosition(dcu, ((ClassTree) t).getModifiers()));
                } else if (t instanceof MethodTree) {
                    MethodTree m = (MethodTree) t;
                    Tree after = m.getReturnType() != null ? m.getReturnType() : m.getModifiers();
                    from = Math.max(from, pos.getEndPosition(dcu, after));
                } else if (t instanceof VariableTree) {
                    VariableTree var = (VariableTree) t;
                    if (var.getType() != null) from = Math.max(from, pos.getEndPosition(dcu, var.getType()));
                }
                String src = text.get(dcu);
                int at = wordAt(src, name, (int) Math.max(from, 0));
                if (at >= 0) {
                    long line = dcu.getLineMap().getLineNumber(at);
                    long col = at - dcu.getLineMap().getStartPosition(line);
                    found = rel.get(dcu) + "\t" + line + "\t" + col + "\t" + name;
                }
            }
            declCache.put(e, found);
            return found;
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
