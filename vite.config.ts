import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const api = process.env.STREAMGATE_DEV_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 800 },
  // In development the portal runs on Vite and the API on the service.
  server: { proxy: { '/api': api } },
});
